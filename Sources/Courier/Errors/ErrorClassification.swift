/// What kind of failure a ``CourierError`` is, for code that reacts to it (seed 004's
/// `ErrorHandler` types): switch over ``CourierError/classification``.
public enum ErrorClassification: Sendable, Hashable {
    /// The device has no network connection.
    case offline
    /// The server did not respond in time.
    case timedOut
    /// The host refused the connection or could not be found.
    case cannotConnect
    /// The connection broke before the whole response arrived.
    case connectionLost
    /// The server's answer was malformed (broken framing, an unreadable encoding).
    case invalidResponse
    /// The request was cancelled.
    case cancelled
    /// 401: the user must sign in again.
    case unauthorized
    /// 403: the user may not do this.
    case forbidden
    /// 404: the resource does not exist.
    case notFound
    /// 422: the server rejected the input; the field errors, when the body had a known shape.
    case validationFailed(ValidationErrors?)
    /// Any other 4xx status.
    case clientError(Int)
    /// A 5xx status.
    case serverError(Int)
    /// The body could not be decoded; the key path where decoding stopped.
    case decodingFailed(keyPath: String?)
    /// The request could not be built (bad URL, body that cannot be encoded).
    case invalidRequest
    /// A class your ``ErrorHandling/classifier`` chose.
    case custom(String)
    /// Anything else (redirect loops, transport failures, errors from delegate hooks).
    case other
}
