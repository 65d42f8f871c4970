/// What `/echo` returns: the request exactly as the server received it.
public struct EchoReply: Codable, Sendable, Equatable {
    /// The method.
    public var method: String
    /// The path, still percent-encoded as sent.
    public var path: String
    /// The query string as sent, without `?` (`nil` when there was none).
    public var query: String?
    /// Every header as `[name, value]`, in the order received.
    public var headers: [[String]]
    /// The body bytes, Base64-encoded.
    public var body: String

    /// Creates a reply.
    public init(method: String, path: String, query: String?, headers: [[String]], body: String) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first value of a header (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}
