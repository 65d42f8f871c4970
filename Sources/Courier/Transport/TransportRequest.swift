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
    /// Seconds allowed: ``URLSessionTransport`` applies it as an idle timeout (no byte sent or
    /// received for that long), as `URLSession` does; `AsyncHTTPClientTransport` as a deadline for
    /// the whole exchange.
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
