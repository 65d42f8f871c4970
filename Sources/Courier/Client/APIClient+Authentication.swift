extension APIClient {
    /// The credentials captured from the API, or `nil` when signed out (or when no
    /// ``ClientConfiguration/authenticationHeaders`` are configured).
    public var credentials: Credentials? { authentication?.current.credentials }

    /// Whether credentials are stored.
    public var isSignedIn: Bool { credentials != nil }

    /// Forgets the captured credentials, in memory and in the credential store, and removes the
    /// user's cached responses: later requests go out without them.
    /// - Throws: ``CourierError/Kind/transport`` when the store cannot delete them.
    public func logout() throws(CourierError) {
        if let authentication, let cache = configuration.cache {
            let scope = authentication.cacheScope
            if scope != CacheKey.publicScope { cache.removeAll(scope: scope) }
        }
        do {
            try authentication?.clear()
        } catch {
            throw CourierError(.transport, "The stored credentials could not be deleted: \(error)", underlyingError: error)
        }
    }
}
