extension APIClient {
    /// Seed 001's `ResponseBlock<T>`: the value or the error, and whether the value came from the
    /// cache. A ``CacheOption/both`` request with a cached response calls it twice, the cached value
    /// first (`fromCache` true).
    public typealias ResponseBlock<Value: Sendable> = @Sendable (_ value: Value?, _ error: CourierError?, _ fromCache: Bool) -> Void

    /// Starts `request` and calls `responseBlock` on the request's callback queue (else the
    /// client's) with the value, or with the error, the way seed 001's `ResponseBlock` is called.
    ///
    /// ```swift
    /// client.request(Request<User>(.get, "me", cache: .both)) { user, error, fromCache in
    ///     if let user { show(user, stale: fromCache) } else if let error { report(error.userMessage) }
    /// }
    /// ```
    ///
    /// Exactly one of `value` and `error` is non-`nil` in each call; a failure always has
    /// `fromCache` false. It is ``request(_:completion:)`` with the `Result` taken apart: the
    /// returned task's ``RequestTask/id`` is the request's identifier and ``RequestTask/cancel()``
    /// reports ``CourierError/Kind/cancelled`` once.
    @discardableResult
    public func request<Value>(_ request: Request<Value>, responseBlock: @escaping ResponseBlock<Value>) -> RequestTask {
        self.request(request, completion: { result in
            switch result {
            case .success(let response): responseBlock(response.value, nil, response.fromCache)
            case .failure(let error): responseBlock(nil, error, false)
            }
        })
    }
}
