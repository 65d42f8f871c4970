import Foundation

/// What the sample server's `/echo` route answers: the request as it arrived.
struct Echo: Decodable, Sendable {
    var method: String
    var path: String
    var query: String?
    /// The body, Base64-encoded.
    var body: String

    /// The body as text.
    var bodyText: String { Data(base64Encoded: body).map { String(decoding: $0, as: UTF8.self) } ?? "" }
}
