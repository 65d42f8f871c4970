/// The authentication headers captured from an API's responses, and the origin they belong to.
public struct Credentials: Sendable, Hashable, Codable {
    /// Header name → value, as the server sent them.
    public var headers: [String: String]
    /// The origin (`scheme://host:port`) the headers were captured from and are sent to.
    public var origin: String

    /// Creates credentials.
    public init(headers: [String: String], origin: String) {
        self.headers = headers
        self.origin = origin
    }

    /// The value of `name` (case-insensitive).
    public subscript(name: String) -> String? {
        headers.first { $0.key.caseInsensitiveEquals(name) }?.value
    }
}
