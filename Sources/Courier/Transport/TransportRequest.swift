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
    /// No longer set by ``APIClient`` nor read by Courier's transports: a download streams its
    /// body (see ``HTTPTransport``) and ``APIClient`` writes the file.
    @available(*, deprecated, message: "APIClient.download writes the file from the streamed body; transports no longer see a destination.")
    public var downloadDestination: URL? {
        get { nil }
        set {}  // ignored
    }
    /// Seconds the exchange may go without sending or receiving anything (an idle timeout), on
    /// every transport: a slow body that keeps arriving is not cut off, a silent server is. The
    /// wait for a reader that is slower than the network does not count.
    public var timeout: TimeInterval
    /// Whether a 2xx response is handed back as soon as its head arrives, with its body arriving
    /// in ``TransportResponse/liveBody`` (streams and downloads). Other statuses are gathered in
    /// memory as usual. A transport that ignores it returns the whole body, which ``APIClient``
    /// then reads as one piece.
    package var streamsBody = false

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

extension TransportRequest {
    /// ``timeout`` as a transport can use it: 0 for a negative or NaN value, at most 10⁹ seconds
    /// (about 31 years) for an infinite or larger one, so converting it never crashes.
    package var boundedTimeout: TimeInterval {
        timeout > 0 ? min(timeout, 1e9) : 0
    }

    /// ``boundedTimeout`` in whole nanoseconds, for a transport that schedules a timer with it.
    package var timeoutNanoseconds: Int64 {
        Int64((boundedTimeout * 1e9).rounded())
    }
}
