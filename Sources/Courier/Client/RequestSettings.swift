import Dispatch
import Foundation

/// Every setting of a ``Request`` but its serializer, as one value: what ``Request`` stores, what
/// ``Request/reading(with:)`` carries over whole, and what every layer of the pipeline passes on.
/// Not generic, so the request loop is compiled once instead of once per `Value`.
struct RequestSettings: Sendable {
    var method: HTTPMethod
    var path: String
    var query: Parameters
    var body: RequestBody
    var headers: HTTPHeaders
    var baseURL: URL?
    var apiPath: String?
    var encoder: (any ParameterEncoding)?
    var decoder: (any DataDecoder)?
    var cacheOption: CacheOption?
    var suppressErrorAlert = false
    var shouldSaveInCache = true
    var offlineMode: Bool?
    var maximumResponseSize: Int64?
    var timeout: TimeInterval?
    var callbackQueue: DispatchQueue?
    var uploadProgress: ProgressHandler?
    var downloadProgress: ProgressHandler?
    var retryPolicy: RetryPolicy?
    var deduplication: Bool?
    var name: String?
    /// Why the request cannot be sent as described (set by ``RequestGroup``), reported when sent.
    var preparationFailure: String?
    /// A body streamed in place of ``body`` (``Request/streamedBody``).
    var streamedBody: StreamedBody?
    /// Whether a 2xx body is handed on as it arrives (``APIClient/stream(_:)``,
    /// ``APIClient/download(_:to:)``) instead of gathered in memory.
    var streamsBody = false
    /// The stored response a conditional request revalidates: a `304` answers with it.
    var revalidating: CachedResponse?
}
