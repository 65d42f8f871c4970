import Foundation

/// A response as an ``HTTPTransport`` returns it.
public struct TransportResponse: Sendable {
    /// The URL that answered.
    public var url: URL
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The whole body.
    public var body: Data
    /// No longer set by Courier's transports: a download's file is written by ``APIClient``.
    @available(*, deprecated, message: "APIClient.download writes the file from the streamed body.")
    public var bodyFile: URL? {
        get { nil }
        set {}  // ignored
    }
    /// The body, still arriving, of a 2xx answer to a request that streams its body
    /// (``TransportRequest/streamsBody``); ``body`` is then empty.
    package var liveBody: LiveBody?
    /// When the response head arrived, if the transport reports it (for time to first byte in
    /// ``RequestMetrics``).
    package var headersReceivedAt: ContinuousClock.Instant?

    /// Creates a response.
    public init(url: URL, statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}

extension TransportResponse {
    /// The body read as JSON, XML, text or bytes by its `Content-Type` (parsed on each access).
    public var bodyValue: ResponseBodyValue { ResponseBodyValue.read(body, contentType: headers["Content-Type"]) }
}
