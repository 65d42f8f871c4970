import Foundation

extension CourierError {
    /// A cancellation error for `url`.
    static func cancelled(_ url: URL?) -> CourierError {
        CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: CancellationError())
    }

    /// Wraps any error thrown while a request ran; a `CourierError` passes through unchanged.
    static func wrap(_ error: any Error, url: URL?) -> CourierError {
        if let error = error as? CourierError { return error }
        if error is CancellationError { return .cancelled(url) }
        return CourierError(.transport, "The request failed: \(error)", url: url, underlyingError: error)
    }
}
