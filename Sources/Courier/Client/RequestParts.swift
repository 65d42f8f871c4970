import Dispatch
import Foundation

/// Everything of a ``Request`` but its serializer: what the request loop needs, as a non-generic
/// value so that loop is compiled once, specialised, instead of running generically per `Value`.
struct RequestParts: Sendable {
    var method: HTTPMethod
    var path: String
    var query: Parameters
    var body: RequestBody
    var headers: HTTPHeaders
    var baseURL: URL?
    var apiPath: String?
    var encoder: (any ParameterEncoding)?
    var timeout: TimeInterval?
    var callbackQueue: DispatchQueue?
    var uploadProgress: ProgressHandler?
    var downloadProgress: ProgressHandler?
    var suppressErrorAlert: Bool
    var preparationFailure: String?
    var cacheOption: CacheOption?
    var shouldSaveInCache: Bool
    var offlineMode: Bool?
    var maximumResponseSize: Int64?
    var retryPolicy: RetryPolicy?
    var deduplication: Bool?
    var name: String?
    /// Where ``APIClient/download(_:to:)`` writes the body.
    var downloadDestination: URL?
    /// The stored response a conditional request revalidates: a `304` answers with it.
    var revalidating: CachedResponse?
}

extension Request {
    /// The request without its serializer.
    var parts: RequestParts {
        RequestParts(
            method: method, path: path, query: query, body: body, headers: headers, baseURL: baseURL, apiPath: apiPath,
            encoder: encoder, timeout: timeout, callbackQueue: callbackQueue, uploadProgress: uploadProgress,
            downloadProgress: downloadProgress, suppressErrorAlert: suppressErrorAlert, preparationFailure: preparationFailure,
            cacheOption: cacheOption, shouldSaveInCache: shouldSaveInCache, offlineMode: offlineMode,
            maximumResponseSize: maximumResponseSize, retryPolicy: retryPolicy, deduplication: deduplication, name: name)
    }
}
