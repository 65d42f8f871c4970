import Foundation

extension APIClient {
    /// Resolves a request into what goes on the wire: URL, headers (with the captured credentials
    /// when the URL is the API's origin), encoded body.
    package func transportRequest<Value>(for request: Request<Value>) throws(CourierError) -> TransportRequest {
        try prepare(request.settings).request
    }

    /// The client's URL prefix, or one for the request's own base URL or API path.
    func urlPrefix(for request: RequestSettings) -> URLBuilder.Prefix {
        guard request.baseURL != nil || request.apiPath != nil else { return urlPrefix }
        return URLBuilder.Prefix(baseURL: request.baseURL ?? configuration.baseURL, apiPath: request.apiPath ?? configuration.apiPath)
    }

    /// The wire request and the version of the credentials it carries; `urlBase` is the URL before
    /// its query when the cache plan already made it.
    func prepare(
        _ request: RequestSettings, streamsBody: Bool = false, urlBase: URLBuilder.Base? = nil
    ) throws(CourierError) -> (request: TransportRequest, credentialsVersion: Int) {
        if let failure = request.preparationFailure {
            throw CourierError(.encodingFailed, "The request \(request.method) \(request.path) cannot be sent: \(failure).")
        }
        if let configurationProblem { throw configurationProblem }
        try RequestValidation.checkMethod(request.method)
        if let timeout = request.timeout { try RequestValidation.checkTimeout(timeout, "Request.timeout") }
        try RequestValidation.checkSize(request.maximumResponseSize, "Request.maximumResponseSize")
        if let policy = request.retryPolicy { try RequestValidation.checkRetryPolicy(policy, "Request.retryPolicy") }
        try RequestValidation.checkBody(request.body, for: request.method)
        var query = request.query
        var body: EncodedBody?
        var stream: StreamedBody?
        do {
            switch request.body.content {
            case .none:
                break
            case .parameters(let parameters) where request.method.encodesParametersInURL:
                query.merge(parameters) { own, _ in own }
            case .parameters(let parameters) where parameters.containsBinary:
                (body, stream) = try Self.inMemoryIfPossible(MultipartFormData().stream(parameters))
            case .multipart(let parts):
                (body, stream) = try Self.inMemoryIfPossible(MultipartFormData().stream(parts))
            case .parameters(let parameters):
                body = try (request.encoder ?? configuration.parameterEncoder).encode(parameters)
            case .encodable(let value):
                let encoder = configuration.encoder
                body = EncodedBody(data: try encoder.encode(value), contentType: encoder.contentType)
            case .data(let data, let contentType):
                body = EncodedBody(data: data, contentType: contentType)
            }
        } catch {
            throw CourierError(.encodingFailed, "The body of \(request.method) \(request.path) cannot be encoded: \(error)", underlyingError: error)
        }
        if let streamed = request.streamedBody {
            guard !request.method.encodesParametersInURL else {
                throw CourierError(.invalidRequest, "The \(request.method) request has a body; \(request.method) requests cannot carry one: send it with POST, PUT or PATCH.")
            }
            (body, stream) = (nil, streamed)
        }
        let prefix = urlPrefix(for: request)
        let base: URLBuilder.Base
        if let urlBase { base = urlBase } else { base = try URLBuilder.base(prefix: prefix, path: request.path) }
        let url = try URLBuilder.url(base, prefix: prefix, query: query)
        var headers = configuration.defaultHeaders
        headers.merge(request.headers)
        if let contentType = body?.contentType ?? stream?.contentType, !headers.contains("Content-Type") {
            headers["Content-Type"] = contentType
        }
        try RequestValidation.checkHeaders(headers, "The request \(request.method) \(request.path)")
        var version = 0
        if let authentication {
            let (credentials, current) = authentication.headers(for: url)
            version = current
            for name in credentials.keys.sorted() where !headers.contains(name) {
                headers[name] = credentials[name]
            }
        }
        var wire = TransportRequest(
            url: url, method: request.method, headers: headers, body: body?.data,
            timeout: request.timeout ?? configuration.timeout)
        wire.bodyStream = stream
        // The limit is for bodies gathered in memory: a streamed 2xx body is not held to it.
        wire.maximumResponseSize = request.maximumResponseSize ?? configuration.maximumResponseSize
        wire.streamsBody = streamsBody
        return (wire, version)
    }

    /// A multipart body without file segments is sent from memory; one with files is streamed.
    static func inMemoryIfPossible(_ body: StreamedBody) throws -> (EncodedBody?, StreamedBody?) {
        let hasFiles = body.segments.contains { $0.file != nil }
        if hasFiles { return (nil, body) }
        return (EncodedBody(data: try body.collect(), contentType: body.contentType), nil)
    }
}
