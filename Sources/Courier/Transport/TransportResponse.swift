import Foundation

/// A response as an ``HTTPTransport`` returns it.
///
/// A value with one reference inside: a response is handed through the pipeline's stages many
/// times, and a copy is then one retain, not one per field; changing a copy copies its fields
/// first (copy-on-write).
public struct TransportResponse: Sendable {
    private var storage: CopyOnWriteBox<Fields>

    /// The URL that answered.
    public var url: URL { get { storage.fields.url } set { unique().fields.url = newValue } }
    /// The HTTP status code.
    public var statusCode: Int { get { storage.fields.statusCode } set { unique().fields.statusCode = newValue } }
    /// The response headers.
    public var headers: HTTPHeaders { get { storage.fields.headers } set { unique().fields.headers = newValue } }
    /// The whole body.
    public var body: Data { get { storage.fields.body } set { unique().fields.body = newValue } }
    /// The body, still arriving, of a 2xx answer to a request that streams its body
    /// (``TransportRequest/streamsBody``); ``body`` is then empty.
    package var liveBody: LiveBody? { get { storage.fields.liveBody } set { unique().fields.liveBody = newValue } }
    /// When the response head arrived, if the transport reports it (for time to first byte in
    /// ``RequestMetrics``).
    package var headersReceivedAt: ContinuousClock.Instant? { get { storage.fields.headersReceivedAt } set { unique().fields.headersReceivedAt = newValue } }

    /// Creates a response.
    public init(url: URL, statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        storage = CopyOnWriteBox(Fields(url: url, statusCode: statusCode, headers: headers, body: body))
    }

    /// The fields, copied first when another value shares them.
    private mutating func unique() -> CopyOnWriteBox<Fields> { CopyOnWriteBox.unique(&storage) }

    /// What a value holds.
    private struct Fields: Sendable {
        var url: URL
        var statusCode: Int
        var headers: HTTPHeaders
        var body: Data
        var liveBody: LiveBody?
        var headersReceivedAt: ContinuousClock.Instant?
    }
}

extension TransportResponse {
    /// The body read as JSON, XML, text or bytes by its `Content-Type` (parsed on each access).
    public var bodyValue: ResponseBodyValue { ResponseBodyValue.read(body, contentType: headers["Content-Type"]) }
}
