import Foundation

extension CourierError {
    /// A cancellation error for `url`.
    package static func cancelled(_ url: URL?) -> CourierError {
        CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: CancellationError())
    }

    /// A response body over the allowed maximum.
    package static func responseTooLarge(_ url: URL, maximum: Int64, length: Int64?) -> CourierError {
        let size = length.map { "\($0) bytes" } ?? "more"
        return CourierError(
            .responseTooLarge,
            "The response from \(url.absoluteString) is \(size), over the \(maximum)-byte maximum; it was not read further. Raise maximumResponseSize or download it to a file.",
            url: url)
    }

    /// A TLS handshake that refused the server at `url`, for `reason` (in words: "its certificate
    /// expired on …"); the same sentence on every transport.
    package static func untrustedServer(_ url: URL?, reason: String, underlyingError: (any Error)? = nil) -> CourierError {
        CourierError(
            .untrustedServer, "The TLS handshake with \(url?.hostAndPort ?? "the server") failed: \(reason). Nothing of the request was sent.",
            url: url, underlyingError: underlyingError)
    }

    /// A request that may be answered only from the cache, which holds nothing for it.
    static func notCached(_ request: RequestSettings) -> CourierError {
        CourierError(
            .notCached,
            "\(request.method) \(request.path) says Cache-Control: only-if-cached, and the cache holds no response for it; nothing was sent. Send it without only-if-cached to ask the network.")
    }

    /// Wraps any error thrown while a request ran; a `CourierError` passes through unchanged.
    package static func wrap(_ error: any Error, url: URL?) -> CourierError {
        if let error = error as? CourierError { return error }
        if error is CancellationError { return .cancelled(url) }
        return CourierError(.transport, "The request failed: \(error)", url: url, underlyingError: error)
    }
}
