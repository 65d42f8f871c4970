import Foundation

/// A request as it goes to an ``HTTPTransport``: URL, method, headers and body, fully resolved.
public struct TransportRequest: Sendable {
    /// The absolute URL, query included.
    public var url: URL
    /// The method.
    public var method: HTTPMethod
    /// Every header to send.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?
    /// The time allowed for the whole exchange, in seconds.
    public var timeout: TimeInterval

    /// Creates a request.
    public init(url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil, timeout: TimeInterval = 60) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
