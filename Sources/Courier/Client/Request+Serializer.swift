extension Request {
    /// The same request, its response read by `serializer` instead: every setting (method, path,
    /// parameters, body, headers, cache option, progress, retry, name) is kept.
    ///
    /// ```swift
    /// let raw: Request<Data> = UserAPI.profile().reading(with: .data)
    /// ```
    public func reading<Other>(with serializer: ResponseSerializer<Other>) -> Request<Other> {
        Request<Other>(settings: settings, serializer: serializer)
    }
}
