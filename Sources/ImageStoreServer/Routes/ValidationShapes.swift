/// Field-error bodies as web frameworks write them, served by `GET /errors/validation/{shape}`
/// with the framework's own status: what `fastapi`, `djangoRestFramework` and `flaskWebargs`
/// answer was recorded from the frameworks themselves (`Scripts/validation-errors.py`, an order
/// with a bad email, a short zip code and a bad item quantity); the others are taken from each
/// framework's documentation.
enum ValidationShapes {
    /// One framework's answer.
    struct Shape: Sendable {
        var status: Int
        var contentType = "application/json"
        var body: String
    }

    /// The shapes by name; `GET /errors/422?shape=` serves the first four with status 422.
    static let all: [String: Shape] = [
        "rails": Shape(status: 422, body: #"{"errors":{"email":["has already been taken","is invalid"],"password":["is too short (minimum is 8 characters)"]}}"#),
        "nested": Shape(status: 422, body: #"{"error":{"message":"Validation failed","validations":{"email":["has already been taken"],"name":["can't be blank"]}}}"#),
        "jsonapi": Shape(
            status: 422, contentType: "application/vnd.api+json",
            body: #"{"errors":[{"status":"422","source":{"pointer":"/data/attributes/email"},"detail":"has already been taken"},{"status":"422","source":{"pointer":"/data/attributes/password"},"title":"Invalid","detail":"is too short"},{"status":"422","detail":"Account is locked"}]}"#),
        "problem": Shape(
            status: 422, contentType: "application/problem+json",
            body: #"{"type":"https://example.com/probs/validation","title":"Your request is not valid.","status":422,"invalid-params":[{"name":"age","reason":"must be a positive integer"},{"name":"color","reason":"must be 'green', 'red' or 'blue'"}]}"#),
        "fastapi": Shape(
            status: 422,
            body: #"{"detail":[{"type":"int_parsing","loc":["query","page"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"first"},{"type":"string_pattern_mismatch","loc":["body","email"],"msg":"String should match pattern '^[^@]+@[^@]+$'","input":"not-an-email","ctx":{"pattern":"^[^@]+@[^@]+$"}},{"type":"string_too_short","loc":["body","address","zip_code"],"msg":"String should have at least 5 characters","input":"12","ctx":{"min_length":5}},{"type":"int_parsing","loc":["body","items",1,"quantity"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"many"}]}"#),
        "djangoRestFramework": Shape(
            status: 400,
            body: #"{"email":["Enter a valid email address."],"address":{"zip_code":["Ensure this field has at least 5 characters."]},"items":[{},{"quantity":["A valid integer is required."]}]}"#),
        "flaskWebargs": Shape(
            status: 422,
            body: #"{"errors":{"json":{"address":{"zip_code":["Shorter than minimum length 5."]},"email":["Not a valid email address."],"items":{"1":{"quantity":["Not a valid integer."]}}}}}"#),
        "laravel": Shape(
            status: 422,
            body: #"{"message":"The team name must be a string. (and 2 more errors)","errors":{"team_name":["The team name must be a string.","The team name must be at least 1 characters."],"authorization.role":["The selected authorization.role is invalid."]}}"#),
        "aspnetCore": Shape(
            status: 400, contentType: "application/problem+json",
            body: #"{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"One or more validation errors occurred.","status":400,"errors":{"Email":["The Email field is required."],"Address.ZipCode":["The field ZipCode must be a string with a minimum length of 5."]}}"#),
        "spring": Shape(
            status: 400,
            body: #"{"timestamp":"2024-01-01T00:00:00.000+00:00","status":400,"error":"Bad Request","errors":[{"codes":["Email.order.email"],"defaultMessage":"must be a well-formed email address","objectName":"order","field":"email","rejectedValue":"x","bindingFailure":false,"code":"Email"},{"defaultMessage":"must be greater than 0","field":"items[1].quantity","code":"Positive"}],"path":"/orders"}"#),
        "expressValidator": Shape(
            status: 400,
            body: #"{"errors":[{"type":"field","value":"x","msg":"Invalid value","path":"email","location":"body"},{"type":"field","msg":"Invalid value","path":"items[1].quantity","location":"body"}]}"#),
        "nestjs": Shape(status: 400, body: #"{"statusCode":400,"message":["email must be an email"],"error":"Bad Request"}"#),
    ]
}
