import Foundation

/// Settings shared by a group of requests, given once to ``init(baseURL:apiPath:headers:bodyParameters:queryParameters:encoder:cacheOption:)``: the value-type answer to the seeds' `APIRequest`
/// subclasses (`AuthenticationAPI`, `UserAPI`) that override the base URL or add a parameter to
/// every request.
///
/// ```swift
/// enum BillingAPI {
///     static var group: RequestGroup {
///         RequestGroup(baseURL: URL(string: "https://billing.example.com")!, apiPath: "v2",
///                      bodyParameters: ["email": .string(Session.current.email)])
///     }
///     static func invoices() -> Request<[Invoice]> { group.request(.get, "invoices") }
/// }
/// ```
///
/// What a request sets itself wins over its group: its own base URL, headers and parameters of the
/// same names are kept. Body parameters go into parameter bodies (and into the query of `GET` and
/// `HEAD` requests, as all their parameters do); a request with an `Encodable` or raw body cannot
/// take them and fails with ``CourierError/Kind/encodingFailed`` rather than silently dropping them.
public struct RequestGroup: Sendable {
    /// The base URL for every request of the group.
    let baseURL: URL?
    /// The API path for every request of the group (`""` for none).
    let apiPath: String?
    /// Headers added to every request.
    let headers: HTTPHeaders
    /// Body parameters added to every request.
    let bodyParameters: Parameters
    /// Query parameters added to every request.
    let queryParameters: Parameters
    /// The parameter encoder for the group's requests.
    let encoder: (any ParameterEncoding)?
    /// The cache option for the group's requests that set none.
    let cacheOption: CacheOption?

    /// Creates a group.
    public init(
        baseURL: URL? = nil, apiPath: String? = nil, headers: HTTPHeaders = [:],
        bodyParameters: Parameters = [:], queryParameters: Parameters = [:],
        encoder: (any ParameterEncoding)? = nil, cacheOption: CacheOption? = nil
    ) {
        self.baseURL = baseURL
        self.apiPath = apiPath
        self.headers = headers
        self.bodyParameters = bodyParameters
        self.queryParameters = queryParameters
        self.encoder = encoder
        self.cacheOption = cacheOption
    }

    /// `request` with the group's settings applied under its own.
    public func apply<Value>(to request: Request<Value>) -> Request<Value> {
        var result = request
        result.baseURL = request.baseURL ?? baseURL
        result.apiPath = request.apiPath ?? apiPath
        result.encoder = request.encoder ?? encoder
        result.cacheOption = request.cacheOption ?? cacheOption
        var mergedHeaders = headers
        mergedHeaders.merge(request.headers)
        result.headers = mergedHeaders
        result.query = queryParameters.merging(request.query) { _, own in own }
        if !bodyParameters.isEmpty {
            switch request.body.content {
            case .none: result.body = .parameters(bodyParameters)
            case .parameters(let own): result.body = .parameters(bodyParameters.merging(own) { _, own in own })
            case .multipart(let own):
                // The group's parameters go first, as parameters of a multipart body would.
                result.body = .multipart(bodyParameters.keys.sorted().compactMap { key in
                    bodyParameters[key]!.textValue.map { MultipartPart.text(key, $0) }
                } + own)
            case .encodable, .data:
                result.settings.preparationFailure = "the request group adds body parameters (\(bodyParameters.keys.sorted().joined(separator: ", "))), "
                    + "which cannot be merged into an Encodable or raw body; send a parameter body or use queryParameters"
            }
        }
        return result
    }

    /// A request in this group whose response is decoded as `Value`.
    public func request<Value: Decodable & Sendable>(
        _ method: HTTPMethod = .get, _ path: String, query: Parameters = [:], body: RequestBody = .none,
        headers: HTTPHeaders = [:], cache: CacheOption? = nil, as type: Value.Type = Value.self
    ) -> Request<Value> {
        apply(to: Request(method, path, query: query, body: body, headers: headers, cache: cache))
    }
}
