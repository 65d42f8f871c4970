import Foundation

/// A request as it goes to an ``HTTPTransport``: URL, method, headers and body, fully resolved.
///
/// A value with one reference inside, as ``TransportResponse``: a copy is one retain; changing a
/// copy copies its fields first (copy-on-write).
public struct TransportRequest: Sendable {
    private var storage: CopyOnWriteBox<Fields>

    /// The absolute URL, query included.
    public var url: URL { get { storage.fields.url } set { unique().fields.url = newValue } }
    /// The method.
    public var method: HTTPMethod { get { storage.fields.method } set { unique().fields.method = newValue } }
    /// Every header to send.
    public var headers: HTTPHeaders { get { storage.fields.headers } set { unique().fields.headers = newValue } }
    /// The body, if it is held in memory.
    public var body: Data? { get { storage.fields.body } set { unique().fields.body = newValue } }
    /// The body, when it is streamed (multipart with files): transports read it a piece at a
    /// time and send `Content-Length` = ``StreamedBody/length``. `nil` when ``body`` is used.
    public var bodyStream: StreamedBody? { get { storage.fields.bodyStream } set { unique().fields.bodyStream = newValue } }
    /// The largest response body accepted; a longer one fails with
    /// ``CourierError/Kind/responseTooLarge`` instead of filling memory. `nil` for no limit.
    public var maximumResponseSize: Int64? { get { storage.fields.maximumResponseSize } set { unique().fields.maximumResponseSize = newValue } }
    /// Seconds the exchange may go without sending or receiving anything (an idle timeout), on
    /// every transport: a slow body that keeps arriving is not cut off, a silent server is. The
    /// wait for a reader that is slower than the network does not count.
    public var timeout: TimeInterval { get { storage.fields.timeout } set { unique().fields.timeout = newValue } }
    /// Whether a 2xx response is handed back as soon as its head arrives, with its body arriving
    /// in ``TransportResponse/liveBody`` (streams and downloads). Other statuses are gathered in
    /// memory as usual. A transport that ignores it returns the whole body, which ``APIClient``
    /// then reads as one piece.
    package var streamsBody: Bool { get { storage.fields.streamsBody } set { unique().fields.streamsBody = newValue } }

    /// Creates a request.
    public init(url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil, timeout: TimeInterval = 60) {
        storage = CopyOnWriteBox(Fields(url: url, method: method, headers: headers, body: body, timeout: timeout))
    }

    /// The fields, copied first when another value shares them.
    private mutating func unique() -> CopyOnWriteBox<Fields> { CopyOnWriteBox.unique(&storage) }

    /// What a value holds.
    private struct Fields: Sendable {
        var url: URL
        var method: HTTPMethod
        var headers: HTTPHeaders
        var body: Data?
        var bodyStream: StreamedBody?
        var maximumResponseSize: Int64?
        var timeout: TimeInterval
        var streamsBody = false
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
