extension CourierError {
    /// The response body as text (seed 004's `operation.responseString`), when a body arrived and
    /// is UTF-8; `nil` otherwise. An ``ErrorHandling/messageExtractor`` that returns it for a 422
    /// is seed 004's `customErrorHandler`:
    ///
    /// ```swift
    /// configuration.errorHandling = ErrorHandling(messageExtractor: { error in
    ///     error.statusCode == 422 ? error.bodyText : ErrorHandling.defaultMessage(in: error)
    /// })
    /// ```
    public var bodyText: String? {
        guard let body, !body.isEmpty else { return nil }
        return String(validating: body, as: UTF8.self)
    }
}
