import Foundation

/// A response as an ``HTTPTransport`` returns it.
///
/// A value with one reference inside: a response is handed through the pipeline's stages many
/// times, and a copy is then one retain, not one per field; changing a copy copies its fields
/// first (copy-on-write).
public struct TransportResponse: Sendable {
    private var storage: Storage

    /// The URL that answered.
    public var url: URL { get { storage.url } set { unique().url = newValue } }
    /// The HTTP status code.
    public var statusCode: Int { get { storage.statusCode } set { unique().statusCode = newValue } }
    /// The response headers.
    public var headers: HTTPHeaders { get { storage.headers } set { unique().headers = newValue } }
    /// The whole body.
    public var body: Data { get { storage.body } set { unique().body = newValue } }
    /// The body, still arriving, of a 2xx answer to a request that streams its body
    /// (``TransportRequest/streamsBody``); ``body`` is then empty.
    package var liveBody: LiveBody? { get { storage.liveBody } set { unique().liveBody = newValue } }
    /// When the response head arrived, if the transport reports it (for time to first byte in
    /// ``RequestMetrics``).
    package var headersReceivedAt: ContinuousClock.Instant? { get { storage.headersReceivedAt } set { unique().headersReceivedAt = newValue } }

    /// Creates a response.
    public init(url: URL, statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        storage = Storage(url: url, statusCode: statusCode, headers: headers, body: body)
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
        var statusCode: Int
        var headers: HTTPHeaders
        var body: Data
        var liveBody: LiveBody?
        var headersReceivedAt: ContinuousClock.Instant?

        init(url: URL, statusCode: Int, headers: HTTPHeaders, body: Data) {
            self.url = url
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
        }

        func copy() -> Storage {
            let copy = Storage(url: url, statusCode: statusCode, headers: headers, body: body)
            copy.liveBody = liveBody
            copy.headersReceivedAt = headersReceivedAt
            return copy
        }
    }
}

extension TransportResponse {
    /// The body read as JSON, XML, text or bytes by its `Content-Type` (parsed on each access).
    public var bodyValue: ResponseBodyValue { ResponseBodyValue.read(body, contentType: headers["Content-Type"]) }
}
