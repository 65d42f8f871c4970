import Foundation

extension APIClient {
    /// The key `request`'s response is cached under, for the current user.
    public func cacheKey<Value>(for request: Request<Value>) throws(CourierError) -> CacheKey {
        try cacheKey(for: request.parts)
    }

    /// The response cached for `request`, if any (counts as an access).
    public func cachedResponse<Value>(for request: Request<Value>) -> CachedResponse? {
        guard let cache = configuration.cache, let key = try? cacheKey(for: request) else { return nil }
        return cache.response(for: key)
    }

    /// Removes the response cached for `request`.
    public func removeCachedResponse<Value>(for request: Request<Value>) {
        guard let cache = configuration.cache, let key = try? cacheKey(for: request) else { return }
        cache.removeResponse(for: key)
    }

    /// Method, URL, canonical parameters and body, and the auth scope.
    func cacheKey(for request: RequestParts) throws(CourierError) -> CacheKey {
        var query = request.query
        var body = CanonicalHasher()
        switch request.body {
        case .none:
            body.add(tag: 0)
        case .parameters(let parameters) where request.method.encodesParametersInURL:
            query.merge(parameters) { own, _ in own }
            body.add(tag: 0)
        case .parameters(let parameters):
            body.add(tag: 1)
            body.add(Parameter.object(parameters))
        case .encodable(let value):
            let data: Data
            do {
                data = try configuration.encoder.encode(value)
            } catch {
                throw CourierError(.encodingFailed, "The body of \(request.method) \(request.path) cannot be encoded: \(error)", underlyingError: error)
            }
            if let json = try? JSONValue.parse(data) {
                body.add(tag: 2)
                body.add(json)
            } else {
                body.add(tag: 3)
                body.add(bytes: data)
            }
        case .data(let data, let contentType):
            body.add(tag: 3)
            body.add(string: contentType)
            body.add(bytes: data)
        }
        let url = try URLBuilder.url(
            baseURL: request.baseURL ?? configuration.baseURL, apiPath: request.apiPath ?? configuration.apiPath,
            path: request.path, query: [:])
        return CacheKey.make(
            method: request.method, url: url, query: query, bodyDigest: body.hex(),
            scope: authentication?.cacheScope ?? CacheKey.publicScope)
    }
}
