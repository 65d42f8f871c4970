import BenchWorkloads
import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Field errors as real frameworks write them: FastAPI, Django REST framework and Flask + webargs
/// run here (`Scripts/validation-errors.py`, through each framework's own test client), and what
/// they answer is sent back through the sample server (`POST /errors/replay`) to a client on
/// each transport. Shapes of frameworks that do not run here come from their documentation.
@Suite struct ValidationFrameworkTests {
    struct Case: Decodable {
        var `case`: String
        var status: Int
        var contentType: String
        var body: JSONValue
    }

    /// What the frameworks answered, per framework.
    static func frameworkAnswers() async throws -> [String: [Case]] {
        let script = TestTools.root.appendingPathComponent("Scripts/validation-errors.py").path
        return try JSONDecoder().decode([String: [Case]].self, from: await TestTools.runPython([script], in: .frameworks))
    }

    /// The error a client gets when the server answers `answer`.
    static func error(for answer: Case, client: APIClient) async throws -> CourierError? {
        let body = try JSONEncoder().encode(answer.body)
        let request = Request<JSONValue>(.post, "errors/replay", query: ["status": .int(answer.status)], body: .data(body, contentType: answer.contentType))
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: TransportKind.allCases)
    func realFrameworksGiveFieldErrorsInTheAppsNaming(kind: TransportKind) async throws {
        let answers = try await Self.frameworkAnswers()
        try await kind.with { transport in
            try await withServer { server in
                let client = server.client(transport)
                for framework in ["fastapi", "djangoRestFramework", "flaskWebargs"] {
                    let order = try #require(answers[framework]?.first { $0.case == "order" }, "\(framework)")
                    let error = try #require(try await Self.error(for: order, client: client))
                    #expect(error.classification.name == "validationFailed", "\(framework) \(order.status)")
                    // The sample server's copy is what the framework wrote.
                    let served = try #require(try await Self.failure(of: Request<JSONValue>(.get, "errors/validation/\(framework)"), client: client))
                    #expect(served.statusCode == order.status && served.bodyValue?.json == order.body, "the sample server's \(framework) body")
                    let errors = try #require(error.validationErrors, "\(framework)")
                    for field in ["email", "address.zipCode", "items.1.quantity"] {
                        #expect(!errors.messages(for: field).isEmpty, "\(framework): \(field) in \(errors.fields)")
                    }
                    #expect(errors.serverNames["address.zipCode"] == "address.zip_code", "\(framework)")
                    #expect(errors.messages(for: "address.zip_code") == errors.messages(for: "address.zipCode"))
                    #expect(error.userMessage.hasPrefix("address.zipCode "), "\(framework): \(error.userMessage)")
                    #expect(error.userMessage.contains("more") == (errors.messages.count > 3), "\(error.userMessage)")
                }
                // FastAPI also names the query parameter, without its location.
                let fastAPI = try #require(try await Self.error(for: answers["fastapi"]![0], client: client))
                #expect(fastAPI.validationErrors?.messages(for: "page").isEmpty == false)
                // Django REST framework's errors not tied to a field are `base`.
                let closed = try #require(answers["djangoRestFramework"]?.first { $0.case == "nonField" })
                let nonField = try #require(try await Self.error(for: closed, client: client))
                #expect(nonField.validationErrors?.fields == ["base": ["Orders are closed today."]])
                #expect(nonField.userMessage == "Orders are closed today.")
                // A `detail` string is a message, not field errors.
                for framework in ["fastapi", "djangoRestFramework"] {
                    let answer = try #require(answers[framework]?.first { $0.case == "detail" })
                    let detail = try #require(try await Self.error(for: answer, client: client))
                    #expect(detail.classification == .clientError(400) && detail.validationErrors == nil, "\(framework)")
                    #expect(detail.userMessage == answer.body["detail"]?.stringValue, "\(framework)")
                }
            }
        }
    }

    /// The sample server's `GET /errors/validation/{shape}` serves each framework's field errors with
    /// its status; every one reaches the app as field errors, on both transports.
    @Test(arguments: TransportKind.allCases)
    func theSampleServerServesEveryFrameworksShape(kind: TransportKind) async throws {
        let expected: [String: (status: Int, field: String)] = [
            "rails": (422, "email"), "nested": (422, "email"), "jsonapi": (422, "email"), "problem": (422, "age"),
            "fastapi": (422, "address.zipCode"), "djangoRestFramework": (400, "items.1.quantity"),
            "flaskWebargs": (422, "address.zipCode"), "laravel": (422, "teamName"), "aspnetCore": (400, "address.zipCode"),
            "spring": (400, "items.1.quantity"), "expressValidator": (400, "items.1.quantity"), "nestjs": (400, "base"),
        ]
        try await kind.with { transport in
            try await withServer { server in
                let client = server.client(transport)
                for (shape, want) in expected {
                    let error = try #require(try await Self.failure(of: Request<JSONValue>(.get, "errors/validation/\(shape)"), client: client), "\(shape)")
                    #expect(error.statusCode == want.status, "\(shape)")
                    #expect(error.classification.name == "validationFailed", "\(shape): \(error.classification)")
                    #expect(error.validationErrors?.messages(for: want.field).isEmpty == false, "\(shape): \(String(describing: error.validationErrors))")
                }
                let unknown = try #require(try await Self.failure(of: Request<JSONValue>(.get, "errors/validation/cobol"), client: client))
                #expect(unknown.statusCode == 404)
            }
        }
    }

    static func failure(of request: Request<JSONValue>, client: APIClient) async throws -> CourierError? {
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            return error
        }
    }

    /// Shapes from the frameworks' documentation, each with where it was taken from.
    @Test(arguments: [
        // ASP.NET Core ValidationProblemDetails (learn.microsoft.com, "Handle errors in ASP.NET Core controller-based web APIs").
        (#"{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.1","title":"One or more validation errors occurred.","status":400,"errors":{"Email":["The Email field is required."],"Address.ZipCode":["The field ZipCode must be a string with a minimum length of 5."]}}"#,
         ["email": ["The Email field is required."], "address.zipCode": ["The field ZipCode must be a string with a minimum length of 5."]]),
        // Spring Boot's default error body with binding errors (docs.spring.io, DefaultErrorAttributes, `errors`).
        (#"{"timestamp":"2024-01-01T00:00:00.000+00:00","status":400,"error":"Bad Request","errors":[{"codes":["Email.order.email"],"defaultMessage":"must be a well-formed email address","objectName":"order","field":"email","rejectedValue":"x","bindingFailure":false,"code":"Email"},{"defaultMessage":"must be greater than 0","field":"items[1].quantity","code":"Positive"}],"path":"/orders"}"#,
         ["email": ["must be a well-formed email address"], "items.1.quantity": ["must be greater than 0"]]),
        // NestJS ValidationPipe with class-validator (docs.nestjs.com, "Validation").
        (#"{"statusCode":400,"message":["email must be an email"],"error":"Bad Request"}"#, ["base": ["email must be an email"]]),
        // express-validator 7 (express-validator.github.io, "Getting started": `errors` of `path`/`msg`).
        (#"{"errors":[{"type":"field","value":"x","msg":"Invalid value","path":"email","location":"body"},{"type":"field","msg":"Invalid value","path":"items[1].quantity","location":"body"}]}"#,
         ["email": ["Invalid value"], "items.1.quantity": ["Invalid value"]]),
        // express-validator 6 (`param`).
        (#"{"errors":[{"value":"x","msg":"Invalid value","param":"email","location":"body"}]}"#, ["email": ["Invalid value"]]),
        // Laravel (laravel.com, "Validation": the JSON error response).
        (#"{"message":"The team name must be a string. (and 4 more errors)","errors":{"team_name":["The team name must be a string.","The team name must be at least 1 characters."],"authorization.role":["The selected authorization.role is invalid."]}}"#,
         ["teamName": ["The team name must be a string.", "The team name must be at least 1 characters."], "authorization.role": ["The selected authorization.role is invalid."]]),
        // Rails' scaffold (`render json: @user.errors, status: :unprocessable_entity`).
        (#"{"name":["can't be blank"],"email_address":["is invalid"]}"#, ["name": ["can't be blank"], "emailAddress": ["is invalid"]]),
        // RFC 9457, section 3's example: `errors` with JSON pointers.
        (##"{"type":"https://example.net/validation-error","title":"Your request is not valid.","errors":[{"detail":"must be a positive integer","pointer":"#/age"},{"detail":"must be 'green', 'red' or 'blue'","pointer":"#/profile/color"}]}"##,
         ["age": ["must be a positive integer"], "profile.color": ["must be 'green', 'red' or 'blue'"]]),
        // JSON:API (jsonapi.org, "Error Objects"), a nested attribute.
        (#"{"errors":[{"status":"422","source":{"pointer":"/data/attributes/first_name"},"title":"Invalid Attribute","detail":"First name must contain at least two characters."}]}"#,
         ["firstName": ["First name must contain at least two characters."]]),
    ])
    func documentedShapesAreParsed(body: String, fields: [String: [String]]) throws {
        let json = try JSONValue.parse(Data(body.utf8))
        #expect(ValidationErrorParser.parse(json)?.fields == fields)
    }

    @Test func anAppsOwnShapeIsTriedFirst() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { configuration in
                configuration.validationErrorParser = { status, body in
                    guard status == 409, let problems = body.json?["problems"]?.arrayValue else { return nil }
                    var fields: [String: [String]] = [:]
                    for problem in problems {
                        fields[problem["input"]?.stringValue ?? "base", default: []].append(problem["text"]?.stringValue ?? "is invalid")
                    }
                    return ValidationErrors(fields: fields)
                }
            }
            let own = Case(case: "own", status: 409, contentType: "application/json", body: try JSONValue.parse(Data(#"{"problems":[{"input":"slug","text":"is taken"}]}"#.utf8)))
            let error = try #require(try await Self.error(for: own, client: client))
            #expect(error.classification == .validationFailed(ValidationErrors(fields: ["slug": ["is taken"]])))
            #expect(error.userMessage == "slug is taken")
            // Bodies it declines go to the built-in shapes.
            let rails = Case(case: "rails", status: 422, contentType: "application/json", body: try JSONValue.parse(Data(#"{"errors":{"email":["is invalid"]}}"#.utf8)))
            #expect(try await Self.error(for: rails, client: client)?.validationErrors?.fields == ["email": ["is invalid"]])
        }
    }

    @Test func manyMessagesAreSummarisedAndOther4xxNeedNamedFields() throws {
        var fields: [String: [String]] = [:]
        for index in 0..<7 { fields["field_\(index)"] = ["is invalid"] }
        let errors = try #require(ValidationErrorParser.parse(.object(["errors": .object(fields.mapValues { .array($0.map(JSONValue.string)) })])))
        #expect(errors.summary() == "field0 is invalid; field1 is invalid; field2 is invalid; and 4 more")
        let conflict = CourierError(.httpStatus(409), "conflict", statusCode: 409, body: Data(#"{"errors":[{"detail":"Too many requests"}]}"#.utf8))
        var read = conflict
        read.bodyValue = ResponseBodyValue.read(read.body ?? Data(), contentType: "application/json")
        #expect(read.defaultClassification == .clientError(409), "a general message on a 409 is not a validation failure")
    }

    @Test func hostileBodiesStayBounded() throws {
        // Nesting as deep as the JSON parser allows (512): the field paths stop at 32 levels.
        let deep = String(repeating: #"{"a":"#, count: 500) + #"["x"]"# + String(repeating: "}", count: 500)
        let nested = try #require(ResponseBodyValue.read(Data(#"{"errors":\#(deep)}"#.utf8), contentType: "application/json").json)
        #expect(ValidationErrorParser.parse(nested) == nil || ValidationErrorParser.parse(nested)?.fields.keys.allSatisfy { $0.split(separator: ".").count <= 32 } == true)
        // 10,000 levels: not JSON Courier reads; the error keeps the raw body.
        let tooDeep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(ResponseBodyValue.read(Data(tooDeep.utf8), contentType: "application/json").json == nil)
        // A 10 MB body of 100,000 fields is read in one pass.
        var big: [String: JSONValue] = [:]
        for index in 0..<100_000 { big["field_\(index)"] = .array([.string(String(repeating: "x", count: 80))]) }
        let errors = ValidationErrorParser.parse(.object(["errors": .object(big)]))
        #expect(errors?.fields.count == 100_000)
        #expect(errors?.summary().hasSuffix("and 99997 more") == true)
    }

    /// Random JSON values: the parser returns, whatever it is given.
    @Test func fuzzedBodiesNeverCrashTheParser() {
        var generator = SplitMix64(seed: 0x5EED_C0DE)
        let keys = ["errors", "detail", "loc", "msg", "field", "path", "pointer", "source", "message", "invalid-params", "name", "0", "a_b", "Json", "json", "non_field_errors"]
        func value(_ depth: Int) -> JSONValue {
            switch generator.next() % (depth > 6 ? 4 : 7) {
            case 0: return .string(keys[Int(generator.next() % UInt64(keys.count))])
            case 1: return .int(Int(generator.next() % 1000))
            case 2: return .bool(generator.next() % 2 == 0)
            case 3: return .null
            case 4, 5:
                var object: [String: JSONValue] = [:]
                for _ in 0..<(generator.next() % 4) { object[keys[Int(generator.next() % UInt64(keys.count))]] = value(depth + 1) }
                return .object(object)
            default:
                return .array((0..<(generator.next() % 4)).map { _ in value(depth + 1) })
            }
        }
        var parsed = 0
        for _ in 0..<20_000 where ValidationErrorParser.parse(value(0)) != nil { parsed += 1 }
        #expect(parsed > 0, "some random bodies have a known shape")
    }
}
