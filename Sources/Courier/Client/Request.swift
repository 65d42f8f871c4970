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
/// ``DataDecoder``; `Data` gives the raw bytes; ``JSONValue`` gives untyped JSON. Any other
/// reading is a serializer: `Request(.get, "feed", serializer: .xml)`.
///
/// Every property of ``RequestSettings`` is a property of a request (`request.timeout = 5`).
@dynamicMemberLookup
public struct Request<Value: Sendable>: Sendable {
    /// Every setting but the serializer.
    var settings: RequestSettings
    /// Turns the response body into `Value`.
    public var serializer: ResponseSerializer<Value>

    /// Creates a request with an explicit serializer.
    public init(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil, serializer: ResponseSerializer<Value>
    ) {
        settings = RequestSettings(method: method, path: path, query: query, body: body, headers: headers, cacheOption: cache)
        self.serializer = serializer
    }

    init(settings: RequestSettings, serializer: ResponseSerializer<Value>) {
        self.settings = settings
        self.serializer = serializer
    }

    /// A setting of the request, read and written in place (`request.timeout = 5`).
    public subscript<Setting>(dynamicMember setting: WritableKeyPath<RequestSettings, Setting>) -> Setting {
        get { settings[keyPath: setting] }
        set { settings[keyPath: setting] = newValue }
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
