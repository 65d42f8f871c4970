import Foundation

/// A request as it goes to an ``HTTPTransport``: URL, method, headers and body, fully resolved.
///
/// A value with one reference inside, as ``TransportResponse``: a copy is one retain; changing a
/// copy copies its fields first (copy-on-write).
public struct TransportRequest: Sendable {
    private var storage: Storage

    /// The absolute URL, query included.
    public var url: URL { get { storage.url } set { unique().url = newValue } }
    /// The method.
    public var method: HTTPMethod { get { storage.method } set { unique().method = newValue } }
    /// Every header to send.
    public var headers: HTTPHeaders { get { storage.headers } set { unique().headers = newValue } }
    /// The body, if it is held in memory.
    public var body: Data? { get { storage.body } set { unique().body = newValue } }
    /// The body, when it is streamed (multipart with files): transports read it a piece at a
    /// time and send `Content-Length` = ``StreamedBody/length``. `nil` when ``body`` is used.
    public var bodyStream: StreamedBody? { get { storage.bodyStream } set { unique().bodyStream = newValue } }
    /// The largest response body accepted; a longer one fails with
    /// ``CourierError/Kind/responseTooLarge`` instead of filling memory. `nil` for no limit.
    public var maximumResponseSize: Int64? { get { storage.maximumResponseSize } set { unique().maximumResponseSize = newValue } }
    /// Seconds the exchange may go without sending or receiving anything (an idle timeout), on
    /// every transport: a slow body that keeps arriving is not cut off, a silent server is. The
    /// wait for a reader that is slower than the network does not count.
    public var timeout: TimeInterval { get { storage.timeout } set { unique().timeout = newValue } }
    /// Whether a 2xx response is handed back as soon as its head arrives, with its body arriving
    /// in ``TransportResponse/liveBody`` (streams and downloads). Other statuses are gathered in
    /// memory as usual. A transport that ignores it returns the whole body, which ``APIClient``
    /// then reads as one piece.
    package var streamsBody: Bool { get { storage.streamsBody } set { unique().streamsBody = newValue } }

    /// Creates a request.
    public init(url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil, timeout: TimeInterval = 60) {
        storage = Storage(url: url, method: method, headers: headers, body: body, timeout: timeout)
    }

    /// The fields, copied first when another value shares them.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The fields. `@unchecked`: only a value that holds the sole reference writes to them
    /// (``unique()``, `isKnownUniquelyReferenced`), as in the standard library's copy-on-write
    /// buffers, so storage that two values share is never written. A class of its own rather
    /// than one generic box: a generic class's fields are found through its metadata on each
    /// access, which cost a plain GET about 4,000 instructions (callgrind).
    private final class Storage: @unchecked Sendable {
        var url: URL
        var method: HTTPMethod
        var headers: HTTPHeaders
        var body: Data?
        var bodyStream: StreamedBody?
        var maximumResponseSize: Int64?
        var timeout: TimeInterval
        var streamsBody = false

        init(url: URL, method: HTTPMethod, headers: HTTPHeaders, body: Data?, timeout: TimeInterval) {
            self.url = url
            self.method = method
            self.headers = headers
            self.body = body
            self.timeout = timeout
        }

        func copy() -> Storage {
            let copy = Storage(url: url, method: method, headers: headers, body: body, timeout: timeout)
            copy.bodyStream = bodyStream
            copy.maximumResponseSize = maximumResponseSize
            copy.streamsBody = streamsBody
            return copy
        }
    }
}

extension TransportRequest {
    /// The body's length, in memory or streamed.
    package var bodyLength: Int64 { bodyStream?.length ?? Int64(body?.count ?? 0) }
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
