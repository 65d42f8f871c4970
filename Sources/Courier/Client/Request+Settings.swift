import Dispatch
import Foundation

/// The request's settings, each read from and written to its ``RequestSettings`` value.
extension Request {
    /// The HTTP method.
    public var method: HTTPMethod {
        get { settings.method }
        set { settings.method = newValue }
    }
    /// A path relative to the base URL and API path (`"users/42"`), or an absolute `http(s)` URL.
    /// Characters not allowed in a path are percent-encoded; valid `%XX` escapes are kept.
    public var path: String {
        get { settings.path }
        set { settings.path = newValue }
    }
    /// URL (query) parameters, appended to the path's own query if it has one.
    public var query: Parameters {
        get { settings.query }
        set { settings.query = newValue }
    }
    /// The body.
    public var body: RequestBody {
        get { settings.body }
        set { settings.body = newValue }
    }
    /// Headers added to (and replacing) the client's default headers.
    public var headers: HTTPHeaders {
        get { settings.headers }
        set { settings.headers = newValue }
    }
    /// A base URL for this request instead of the client's.
    public var baseURL: URL? {
        get { settings.baseURL }
        set { settings.baseURL = newValue }
    }
    /// An API path for this request instead of the client's (`""` for none).
    public var apiPath: String? {
        get { settings.apiPath }
        set { settings.apiPath = newValue }
    }
    /// The encoder for ``RequestBody/parameters(_:)`` bodies instead of the client's.
    public var encoder: (any ParameterEncoding)? {
        get { settings.encoder }
        set { settings.encoder = newValue }
    }
    /// The decoder for `Decodable` values instead of the client's.
    public var decoder: (any DataDecoder)? {
        get { settings.decoder }
        set { settings.decoder = newValue }
    }
    /// How this request uses the response cache instead of the client's default.
    public var cacheOption: CacheOption? {
        get { settings.cacheOption }
        set { settings.cacheOption = newValue }
    }
    /// Whether a failure of this request is kept from the client's ``ErrorPresenter`` (seed
    /// `suppressErrorAlert`).
    public var suppressErrorAlert: Bool {
        get { settings.suppressErrorAlert }
        set { settings.suppressErrorAlert = newValue }
    }
    /// Whether a successful response may be stored in the cache (seed `shouldSaveInCache`).
    public var shouldSaveInCache: Bool {
        get { settings.shouldSaveInCache }
        set { settings.shouldSaveInCache = newValue }
    }
    /// Offline mode for this request instead of the client's ``ClientConfiguration/offlineMode``.
    public var offlineMode: Bool? {
        get { settings.offlineMode }
        set { settings.offlineMode = newValue }
    }
    /// The largest response body accepted, instead of the client's
    /// ``ClientConfiguration/maximumResponseSize``.
    public var maximumResponseSize: Int64? {
        get { settings.maximumResponseSize }
        set { settings.maximumResponseSize = newValue }
    }
    /// Seconds allowed for the request instead of the client's timeout.
    public var timeout: TimeInterval? {
        get { settings.timeout }
        set { settings.timeout = newValue }
    }
    /// The queue for this request's callbacks (completion and progress) instead of the client's.
    public var callbackQueue: DispatchQueue? {
        get { settings.callbackQueue }
        set { settings.callbackQueue = newValue }
    }
    /// Called as the body uploads, on the callback queue; monotonic, ending at the total.
    public var uploadProgress: ProgressHandler? {
        get { settings.uploadProgress }
        set { settings.uploadProgress = newValue }
    }
    /// Called as the response downloads, on the callback queue; monotonic, ending at the total.
    public var downloadProgress: ProgressHandler? {
        get { settings.downloadProgress }
        set { settings.downloadProgress = newValue }
    }
    /// When this request is sent again after a failure, instead of the client's
    /// ``ClientConfiguration/retryPolicy``.
    public var retryPolicy: RetryPolicy? {
        get { settings.retryPolicy }
        set { settings.retryPolicy = newValue }
    }
    /// Whether this request shares an identical in-flight request's network exchange: `nil`
    /// follows the client (GET and HEAD when ``ClientConfiguration/deduplicatesRequests`` is on),
    /// `true` opts any method in, `false` always sends its own.
    public var deduplication: Bool? {
        get { settings.deduplication }
        set { settings.deduplication = newValue }
    }
    /// A short, fixed name for metrics and traces (`"image"`, `"login"`): a metrics dimension and
    /// the second word of the span name. Never put ids in it: every distinct name is a new series.
    public var name: String? {
        get { settings.name }
        set { settings.name = newValue }
    }
    /// A body streamed from its segments (bytes and files) in place of ``body``, for the package's
    /// own adapters (CourierOpenAPI spools a large generated body to a file). Such a request is
    /// neither cached nor shared; a write still invalidates the cache.
    package var streamedBody: StreamedBody? {
        get { settings.streamedBody }
        set { settings.streamedBody = newValue }
    }
}
