/// A JSON error body: a message and, for 422, the fields.
struct ErrorBody: Encodable {
    var error: String
    var errors: [String: [String]]?
}
