extension Request {
    /// The same request, its response read by `serializer` instead: every setting (method, path,
    /// parameters, body, headers, cache option, progress, retry, name) is kept.
    ///
    /// ```swift
    /// let raw: Request<Data> = UserAPI.profile().reading(with: .data)
    /// ```
    public func reading<Other>(with serializer: ResponseSerializer<Other>) -> Request<Other> {
        var copy = Request<Other>(method, path, query: query, body: body, headers: headers, cache: cacheOption, serializer: serializer)
        copy.baseURL = baseURL
        copy.apiPath = apiPath
        copy.encoder = encoder
        copy.decoder = decoder
        copy.suppressErrorAlert = suppressErrorAlert
        copy.shouldSaveInCache = shouldSaveInCache
        copy.offlineMode = offlineMode
        copy.maximumResponseSize = maximumResponseSize
        copy.timeout = timeout
        copy.callbackQueue = callbackQueue
        copy.uploadProgress = uploadProgress
        copy.downloadProgress = downloadProgress
        copy.retryPolicy = retryPolicy
        copy.deduplication = deduplication
        copy.name = name
        copy.preparationFailure = preparationFailure
        return copy
    }
}
