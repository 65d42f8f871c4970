import Dispatch
import Foundation

/// Every setting of a ``Request`` but its serializer, declared once: a request reads and writes each
/// of them as its own property (`request.timeout = 5`, `request.headers["Accept"]`).
///
/// The one value ``Request`` stores, ``Request/reading(with:)`` carries over whole, and the
/// pipeline passes on: not generic, so the request loop is compiled once instead of once per
/// `Value`.
public struct RequestSettings: Sendable {
    /// The HTTP method.
    public var method: HTTPMethod
    /// A path relative to the base URL and API path (`"users/42"`), or an absolute `http(s)` URL.
    /// Characters not allowed in a path are percent-encoded; valid `%XX` escapes are kept.
    public var path: String
    /// URL (query) parameters, appended to the path's own query if it has one.
    public var query: Parameters
    /// The body.
    public var body: RequestBody
    /// Headers added to (and replacing) the client's default headers.
    public var headers: HTTPHeaders
    /// A base URL for this request instead of the client's.
    public var baseURL: URL?
    /// An API path for this request instead of the client's (`""` for none).
    public var apiPath: String?
    /// The encoder for ``RequestBody/parameters(_:)`` bodies instead of the client's.
    public var encoder: (any ParameterEncoding)?
    /// The decoder for `Decodable` values instead of the client's.
    public var decoder: (any DataDecoder)?
    /// How this request uses the response cache instead of the client's default.
    public var cacheOption: CacheOption?
    /// When a cached response answers this request without the network, instead of the client's
    /// ``ClientConfiguration/cacheFreshness``.
    public var cacheFreshness: CacheFreshness?
    /// Whether a failure of this request is kept from the client's ``ErrorPresenter`` (seed
    /// `suppressErrorAlert`).
    public var suppressErrorAlert = false
    /// Whether a successful response may be stored in the cache (seed `shouldSaveInCache`).
    public var shouldSaveInCache = true
    /// Offline mode for this request instead of the client's ``ClientConfiguration/offlineMode``.
    public var offlineMode: Bool?
    /// The largest response body accepted, instead of the client's
    /// ``ClientConfiguration/maximumResponseSize``.
    public var maximumResponseSize: Int64?
    /// Seconds allowed for the request instead of the client's timeout.
    public var timeout: TimeInterval?
    /// The queue for this request's callbacks (completion and progress) instead of the client's.
    public var callbackQueue: DispatchQueue?
    /// Called as the body uploads, on the callback queue; monotonic, ending at the total.
    public var uploadProgress: ProgressHandler?
    /// Called as the response downloads, on the callback queue; monotonic, ending at the total.
    public var downloadProgress: ProgressHandler?
    /// When this request is sent again after a failure, instead of the client's
    /// ``ClientConfiguration/retryPolicy``.
    public var retryPolicy: RetryPolicy?
    /// Whether this request shares an identical in-flight request's network exchange: `nil`
    /// follows the client (GET and HEAD when ``ClientConfiguration/deduplicatesRequests`` is on),
    /// `true` opts any method in, `false` always sends its own.
    public var deduplication: Bool?
    /// A short, fixed name for metrics and traces (`"image"`, `"login"`): a metrics dimension and
    /// the second word of the span name. Never put ids in it: every distinct name is a new series.
    public var name: String?
    /// Why the request cannot be sent as described (set by ``RequestGroup``), reported when sent.
    package var preparationFailure: String?
    /// A body streamed from its segments (bytes and files) in place of ``body``, for the package's
    /// own adapters (CourierOpenAPI spools a large generated body to a file). Such a request is
    /// neither cached nor shared; a write still invalidates the cache.
    package var streamedBody: StreamedBody?
    /// Called from the transport with each piece of the body written, neither coalesced nor
    /// queued: how a resumable upload counts the bytes that went out and reports progress within
    /// a piece.
    package var sentBodyObserver: ProgressHandler?

    init(method: HTTPMethod, path: String, query: Parameters, body: RequestBody, headers: HTTPHeaders, cacheOption: CacheOption?) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.headers = headers
        self.cacheOption = cacheOption
    }
}
