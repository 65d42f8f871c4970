extension APIClient {
    /// The credentials captured from the API, or `nil` when signed out (or when no
    /// ``ClientConfiguration/authenticationHeaders`` are configured).
    public var credentials: Credentials? { authentication?.current.credentials }

    /// Whether credentials are stored.
    public var isSignedIn: Bool { credentials != nil }

    /// Forgets the captured credentials, in memory and in the credential store, empties the
    /// client's ``cookieJar`` (and its file), and removes the user's cached responses and kept
    /// partial downloads: later requests go out without them. The responses cached for requests
    /// that carried the jar's cookies (signed out) go too.
    /// - Throws: ``CourierError/Kind/transport`` when the store (or the jar's file) cannot delete them.
    ///
    /// Handlers added with ``addLogoutHandler(_:)`` run first, with the user's scope; when one
    /// fails, the rest still run, the credentials are still forgotten, and the first failure is
    /// thrown.
    public func logout() throws(CourierError) {
        let scope = userScope
        var firstFailure: CourierError?
        for handler in logoutHandlers.all {
            do {
                try handler(scope)
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        // Responses to requests that carried the cookies are kept in the jar's scope: they go with them.
        let cookieScope = cookieJar?.cacheScope
        do {
            try cookieJar?.removeAll()
        } catch {
            firstFailure = firstFailure ?? error
        }
        if let cache = configuration.cache, !cache.isShared {
            if authentication != nil, scope != CacheKey.publicScope { cache.removeAll(scope: scope) }
            if let cookieScope { cache.removeAll(scope: cookieScope) }
        }
        if authentication != nil, scope != CacheKey.publicScope {
            downloadStore.removeAll(scope: scope)
        }
        do {
            try authentication?.clear()
        } catch {
            throw CourierError(.transport, "The stored credentials could not be deleted: \(error)", underlyingError: error)
        }
        if let firstFailure { throw firstFailure }
    }

    /// Who is signed in, as a short stable string: `"public"` when signed out (or when the client
    /// captures no credentials), else `"user-"` and a digest of the API's origin and the
    /// identifying headers' values (``ClientConfiguration/cacheScopeHeaders``). The response cache
    /// keeps each user's entries under it; use it to keep other per-user data apart (a
    /// `CourierStore` per user is named by it). It holds no secret.
    public var userScope: String { authentication?.cacheScope ?? CacheKey.publicScope }

    /// Adds work ``logout()`` does, such as erasing the user's local database; `handler` gets the
    /// ``userScope`` of the user signing out. Returns a number for ``removeLogoutHandler(_:)``.
    @discardableResult
    public func addLogoutHandler(_ handler: @escaping LogoutHandler) -> Int {
        logoutHandlers.add(handler)
    }

    /// Removes a handler added with ``addLogoutHandler(_:)``.
    public func removeLogoutHandler(_ id: Int) {
        logoutHandlers.remove(id)
    }
}

/// Work ``APIClient/logout()`` does for the user signing out, given their ``APIClient/userScope``.
public typealias LogoutHandler = @Sendable (_ userScope: String) throws(CourierError) -> Void
