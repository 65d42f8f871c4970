import Foundation

/// A request as it goes to an ``HTTPTransport``: URL, method, headers and body, fully resolved.
public struct TransportRequest: Sendable {
    /// The absolute URL, query included.
    public var url: URL
    /// The method.
    public var method: HTTPMethod
    /// Every header to send.
    public var headers: HTTPHeaders
    /// The body, if it is held in memory.
    public var body: Data?
    /// The body, when it is streamed (multipart with files): transports read it a piece at a
    /// time and send `Content-Length` = ``StreamedBody/length``. `nil` when ``body`` is used.
    public var bodyStream: StreamedBody?
    /// The largest response body accepted; a longer one fails with
    /// ``CourierError/Kind/responseTooLarge`` instead of filling memory. `nil` for no limit.
    public var maximumResponseSize: Int64?
    /// When set, a 2xx response body is written to this file as it arrives (replacing what is
    /// there) and the returned response has an empty body; other responses keep theirs in memory.
    /// A transport that ignores it returns the body in memory and ``APIClient`` writes the file.
    public var downloadDestination: URL?
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

extension TransportRequest {
    /// The body's length, in memory or streamed.
    public var bodyLength: Int64 { bodyStream?.length ?? Int64(body?.count ?? 0) }
}
