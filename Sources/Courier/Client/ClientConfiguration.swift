import CoreMetrics
import Dispatch
import Foundation
import Logging
import Tracing

/// Everything an ``APIClient`` needs to know, as one value (seed 003's configurator).
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!, apiPath: "v1")
/// configuration.defaultHeaders["Accept-Language"] = "pt-BR"
/// configuration.timeout = 20
/// let client = APIClient(configuration: configuration)
/// ```
public struct ClientConfiguration: Sendable {
    /// The server's base URL, for example `https://api.example.com`.
    public var baseURL: URL
    /// The path every request path is relative to, for example `"v1"` or `"/api/v1/"`.
    public var apiPath: String
    /// Headers sent with every request (a request's own headers of the same name replace them).
    public var defaultHeaders: HTTPHeaders
    /// Seconds allowed for a request when it names no timeout of its own.
    public var timeout: TimeInterval = 60
    /// How requests that name no cache option use the response cache.
    public var cacheOption: CacheOption = .networkOnly
    /// The response cache; ``ResponseCache/shared`` (in ``ResponseCache/standardDirectory``) by
    /// default, `nil` for none. Responses are stored only for requests that read the cache
    /// (``CacheOption/cacheOnly``, ``CacheOption/both``, or offline mode): a plain
    /// ``CacheOption/networkOnly`` request ignores the cache completely, as in the seeds.
    public var cache: ResponseCache? = .shared
    /// Offline mode (seed 003's `MJApiClientCacheManagementOffline`): when the network is
    /// unreachable (offline, host unreachable, timed out), a request answers with its cached
    /// response, marked ``ResponseSource/offlineCache``, instead of failing.
    public var offlineMode = false
    /// When a cached response answers a ``CacheOption/both`` request without a network request:
    /// by default never; ``CacheFreshness/http`` follows the server's caching headers as a browser
    /// does (see <doc:CachingAndOfflineMode> for which to choose).
    public var cacheFreshness = CacheFreshness.never
    /// Where ``APIClient/download(_:to:resuming:sha256:)`` keeps partial downloads, per user
    /// scope; `nil` for `courier-downloads` beside ``ResponseCache/standardDirectory`` (in the
    /// Caches directory on Apple platforms, `$XDG_CACHE_HOME` or `~/.cache` elsewhere). A URL that
    /// is not a file URL fails every request of the client with ``CourierError/Kind/invalidRequest``.
    public var resumableDownloadsDirectory: URL?
    /// Whether every ``APIClient/download(_:to:)`` of this client resumes as
    /// ``APIClient/download(_:to:resuming:sha256:)`` does, kept under an identifier made from its
    /// destination's path (`false`: a failed download leaves nothing behind).
    public var resumesDownloads = false
    /// Whether a request of an unsafe method (any but GET, HEAD, OPTIONS and TRACE: POST, PUT,
    /// PATCH, DELETE and methods of your own) answered with a 2xx or 3xx removes the current user's
    /// cached responses of its path (any query), of the parent path, and of the paths its
    /// `Location` and `Content-Location` name on the same origin (RFC 9111 §4.4). On by default.
    public var invalidatesCacheOnWrite = true
    /// The credential headers whose values identify the user for the cache's per-user scope; `nil`
    /// uses `uid` when ``authenticationHeaders`` has it, else all of them but ``expiryHeader``.
    /// Headers that change with every response (a rotating token) make poor scopes.
    public var cacheScopeHeaders: [String]?
    /// The queue completion and progress callbacks run on when a request names none.
    ///
    /// Defaults to the main queue on Apple platforms and to a serial queue of Courier's own on
    /// Linux, where nothing may be running the main queue.
    public var callbackQueue: DispatchQueue = ClientConfiguration.defaultCallbackQueue
    /// Hooks for adapting requests and observing responses (seed 003's delegate).
    public var delegate: (any APIClientDelegate)?
    /// How parameter bodies are encoded when a request names no encoder (JSON by default).
    public var parameterEncoder: any ParameterEncoding = JSONParameterEncoder()
    /// How `Decodable` responses are decoded when a request names no decoder: ``ModelDecoder``
    /// (the seed's key rules and conversions) by default; set `JSONDecoder()` for Foundation's.
    public var decoder: any DataDecoder = ModelDecoder()
    /// How ``RequestBody/encodable(_:)`` bodies are encoded.
    public var encoder: any DataEncoder = JSONEncoder()
    /// The largest response body a request reads into memory; a longer one fails with
    /// ``CourierError/Kind/responseTooLarge`` as soon as it is known (from `Content-Length`, else
    /// as the bytes arrive), instead of filling memory. The default is
    /// ``defaultMaximumResponseSize`` (64 MiB); `nil` for no limit. ``APIClient/download(_:to:)``
    /// streams to a file and is not limited by it: use it for large transfers.
    public var maximumResponseSize: Int64? = ClientConfiguration.defaultMaximumResponseSize
    /// The default ``maximumResponseSize``: 64 MiB.
    static let defaultMaximumResponseSize: Int64 = 64 << 20
    /// Status codes that count as success; any other is thrown as ``CourierError/Kind/httpStatus(_:)``.
    public var acceptableStatusCodes: Range<Int> = 200..<300
    /// Names of the headers that carry the user's credentials (the seeds' `access-token`, `client`,
    /// `uid`, `expiry`). When set, they are captured from every response of the base URL's origin
    /// that carries them, persisted in ``credentialStore``, attached to every request to that
    /// origin and to no other, removed from redirects that leave it, redacted in logs, and cleared
    /// by ``APIClient/logout()``. Empty by default: nothing is captured.
    public var authenticationHeaders: [String] = []
    /// Which of ``authenticationHeaders`` carries the token's expiry, for the rotation rule: a
    /// response whose expiry is older than the stored one does not replace it. `nil` when the API
    /// sends none (then the response that arrives last wins).
    public var expiryHeader: String? = "expiry"
    /// Where captured credentials persist; `nil` uses the standard store for the base URL's origin
    /// (the Keychain on Apple platforms, a 0600 file under `$XDG_STATE_HOME` on Linux).
    public var credentialStore: CredentialStore?
    /// Renews credentials after a 401, once for all waiting requests; `nil` lets 401s fail.
    public var authenticator: (any Authenticator)?
    /// How errors get their classification and user message.
    public var errorHandling = ErrorHandling()
    /// Your API's own shape of field errors, tried on 4xx bodies (but 401, 403 and 404) before the
    /// built-in shapes; what it returns makes the error ``ErrorClassification/validationFailed(_:)``.
    ///
    /// ```swift
    /// configuration.validationErrorParser = { status, body in
    ///     guard let problems = body.json?["problems"]?.arrayValue else { return nil }
    ///     var fields: [String: [String]] = [:]
    ///     for problem in problems {
    ///         fields[problem["input"]?.stringValue ?? "base", default: []].append(problem["text"]?.stringValue ?? "is invalid")
    ///     }
    ///     return ValidationErrors(fields: fields)
    /// }
    /// ```
    public var validationErrorParser: ErrorHandling.ValidationParser?
    /// Shows errors to the user (seeds 000/001 show an alert): an alert where UIKit exists, a debug
    /// log line through ``logger`` elsewhere. `nil` presents nothing. Cancellations and requests with
    /// ``RequestSettings/suppressErrorAlert`` are never presented, nor a request a fallback answered (offline
    /// mode): a failure is presented once, when the caller gets it.
    public var errorPresenter: ErrorPresenter? = ClientConfiguration.defaultErrorPresenter
    /// How redirects are followed.
    public var redirects = RedirectPolicy()
    /// The cookies requests carry: by default a jar of the client's own, in memory (see
    /// ``CookieJar``), the same on every transport and emptied by ``APIClient/logout()``.
    public var cookies = CookiePolicy.perClient
    /// Where Courier logs a line per request and response at debug level.
    public var logger = Logger(label: "Courier")
    /// When failed requests are sent again; ``RetryPolicy/none`` (the default) sends each once.
    /// A request's own ``RequestSettings/retryPolicy`` replaces it.
    public var retryPolicy = RetryPolicy.none
    /// Whether identical GET and HEAD requests in flight at the same time share one network
    /// exchange (on by default). Identical means same method, URL, headers (credentials included)
    /// and body; each caller still gets its own ``Response``, decoded into its own type.
    public var deduplicatesRequests = true
    /// Where Courier's metrics go; `nil` (the default) uses `MetricsSystem.factory` as bootstrapped
    /// when the client is created. When no backend was bootstrapped nothing is recorded.
    public var metricsFactory: (any MetricsFactory)?
    /// The tracer that gets one span per request; `nil` (the default) uses
    /// `InstrumentationSystem.tracer` as bootstrapped when the client is created. When no tracer
    /// was bootstrapped nothing is traced.
    public var tracer: (any Tracer)?
    /// Which requests carry their span's trace context headers: only those to the base URL's
    /// origin by default.
    public var traceContextPropagation = TraceContextPropagation.apiOrigin

    /// Creates a configuration.
    public init(baseURL: URL, apiPath: String = "", defaultHeaders: HTTPHeaders = [:], authenticationHeaders: [String] = []) {
        self.baseURL = baseURL
        self.apiPath = apiPath
        self.defaultHeaders = defaultHeaders
        self.authenticationHeaders = authenticationHeaders
    }

    /// An alert where UIKit exists, else a log line at debug level.
    static var defaultErrorPresenter: ErrorPresenter {
        #if canImport(UIKit) && !os(watchOS)
        .alert()
        #else
        .logging()
        #endif
    }

    /// The main queue on Apple platforms; a serial `Courier.callbacks` queue on Linux.
    package static let defaultCallbackQueue: DispatchQueue = {
        #if canImport(Darwin)
        return DispatchQueue.main
        #else
        return DispatchQueue(label: "Courier.callbacks")
        #endif
    }()
}
