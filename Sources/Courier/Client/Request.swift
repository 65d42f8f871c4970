import Dispatch
import Foundation

/// A description of one API call and of the value it returns: a `Sendable` value you build, keep,
/// change and send as often as you like.
///
/// ```swift
/// let request = Request<User>(.post, "users", query: ["invite": "abc"], body: ["name": "Ana"])
/// ```
///
/// `Value` decides how the body is read: a `Decodable` type is decoded with the client's
/// ``DataDecoder``; `Data` gives the raw bytes; ``JSONValue`` gives untyped JSON.
public struct Request<Value: Sendable>: Sendable {
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
    /// Whether a failure of this request is kept from the client's ``ErrorPresenter`` (seed
    /// `suppressErrorAlert`).
    public var suppressErrorAlert = false
    /// Whether a successful response may be stored in the cache (seed `shouldSaveInCache`).
    public var shouldSaveInCache: Bool = true
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
    /// Turns the response body into `Value`.
    public var serializer: ResponseSerializer<Value>
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
    var preparationFailure: String?

    /// Creates a request with an explicit serializer.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil, serializer: ResponseSerializer<Value>
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.headers = headers
        self.cacheOption = cache
        self.serializer = serializer
    }
}

extension Request where Value: Decodable {
    /// Creates a request whose response is decoded as `Value`.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil
    ) {
        self.init(method, path, query: query, body: body, headers: headers, cache: cache, serializer: .decodable())
    }
}

extension Request where Value == Data {
    /// Creates a request whose response is the raw body.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil
    ) {
        self.init(method, path, query: query, body: body, headers: headers, cache: cache, serializer: .data)
    }
}

extension Request where Value == JSONValue {
    /// Creates a request whose response is untyped JSON.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil
    ) {
        self.init(method, path, query: query, body: body, headers: headers, cache: cache, serializer: .json)
    }
}

extension Request where Value == ResponseBodyValue {
    /// Creates a request whose response is read as JSON, XML or text by its `Content-Type`.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil
    ) {
        self.init(method, path, query: query, body: body, headers: headers, cache: cache, serializer: .untyped)
    }
}

extension Request where Value == XMLNode {
    /// Creates a request whose response is parsed as an XML tree.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil
    ) {
        self.init(method, path, query: query, body: body, headers: headers, cache: cache, serializer: .xml)
    }
}
