import Foundation

extension APIClient {
    /// The key `request`'s response is cached under, for the current user.
    public func cacheKey<Value>(for request: Request<Value>) throws(CourierError) -> CacheKey {
        try cacheKey(for: request.settings).draft.key()
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

    /// The key of method, URL, canonical parameters and body, and the auth scope (the user's, else
    /// the cookie jar's when the request carries its cookies, else the public one), before its
    /// digest; and the URL before its query, which the wire request reuses. In the jar's scope,
    /// `fallback` is the same key in the public scope, which holds answers to requests that
    /// carried no cookie: a cookie session may read them, never write them. `cookies` is the
    /// jar's `Cookie` field for the request, if any.
    func cacheKey(
        for request: RequestSettings, hashingBody: Bool = true, shared: Bool = false
    ) throws(CourierError) -> (draft: CacheKey.Draft, urlBase: URLBuilder.Base, fallback: CacheKey.Draft?, cookies: String?) {
        var query = request.query
        var encoded: Data?
        switch request.body.content {
        case .parameters(let parameters) where request.method.encodesParametersInURL:
            query.merge(parameters) { own, _ in own }
        case .encodable(let value) where hashingBody:
            do {
                encoded = try configuration.encoder.encode(value)
            } catch {
                throw CourierError(.encodingFailed, "The body of \(request.method) \(request.path) cannot be encoded: \(error)", underlyingError: error)
            }
        default:
            break
        }
        let base = try URLBuilder.base(prefix: urlPrefix(for: request), path: request.path)
        let url = base.text
        var scope = shared ? CacheKey.publicScope : authentication?.cacheScope ?? CacheKey.publicScope
        // The `Cookie` field the jar gives the first hop, looked up once for the scope and `Vary`.
        let cookies = cookieJar.flatMap { jar in jar.isEmpty ? nil : URL(string: url).flatMap(jar.header(for:)) }
        // Signed out but carrying cookies (a cookie session): the jar's own scope, never the public
        // one, which the session still reads.
        var fallbackScope: String?
        if !shared, scope == CacheKey.publicScope, cookies != nil, let jar = cookieJar {
            scope = jar.cacheScope
            fallbackScope = CacheKey.publicScope
        }
        let (draft, fallback) = CacheKey.drafts(method: request.method, url: url, query: query, scope: scope, fallbackScope: fallbackScope) { hasher in
            guard hashingBody else { return hasher.add(tag: 0) }
            switch request.body.content {
            case .parameters(let parameters) where !request.method.encodesParametersInURL:
                hasher.add(tag: 1)
                hasher.add(Parameter.object(parameters))
            case .encodable:
                if let encoded, let json = try? JSONValue.parse(encoded) {
                    hasher.add(tag: 2)
                    hasher.add(json)
                } else {
                    hasher.add(tag: 3)
                    hasher.add(bytes: encoded ?? Data())
                }
            case .multipart(let parts):
                hasher.add(tag: 4)
                hasher.add(Parameter.array(parts.map(\.canonicalParameter)))
            case .data(let data, let contentType):
                hasher.add(tag: 3)
                hasher.add(string: contentType)
                hasher.add(bytes: data)
            default:
                hasher.add(tag: 0)
            }
        }
        return (draft, base, fallback, cookies)
    }
}
