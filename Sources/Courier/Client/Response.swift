import Foundation

/// A successful response: the decoded value and everything known about how it arrived.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The raw body.
    public var data: Data
    /// The URL that answered (after redirects).
    public var url: URL
    /// The identifier of the request.
    public var requestID: RequestID
    /// Attempts, source, bytes and times of the request.
    public var metrics: RequestMetrics

    /// Where the response came from (``RequestMetrics/source``).
    public var source: ResponseSource {
        get { metrics.source ?? .network }
        set { metrics.source = newValue }
    }

    /// Whether the response came from the cache (the seeds' `fromCache` flag).
    public var fromCache: Bool { source != .network }

    /// Creates a response.
    public init(
        value: Value, statusCode: Int, headers: HTTPHeaders, data: Data, url: URL,
        source: ResponseSource, requestID: RequestID, duration: Duration, metrics: RequestMetrics = RequestMetrics()
    ) {
        self.metrics = metrics
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.data = data
        self.url = url
        self.requestID = requestID
        self.metrics.source = source
        self.metrics.duration = duration
    }
}
