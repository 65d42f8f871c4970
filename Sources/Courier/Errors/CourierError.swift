import Foundation

/// The one error type Courier throws.
///
/// It says what went wrong in ``message``, classifies it in ``kind`` (switch over it), and carries
/// what is known: the HTTP status, headers and body of a response, the request's URL and identifier,
/// and the underlying error.
public struct CourierError: Error, Sendable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Hashable {
        /// The URL could not be built, or is not an absolute `http`/`https` URL.
        case invalidURL
        /// The parameters or body could not be encoded.
        case encodingFailed
        /// The host refused the connection or could not be found.
        case cannotConnect
        /// The request or the connection timed out: the server is not responding.
        case timedOut
        /// The device has no network connection.
        case notConnectedToInternet
        /// The connection broke after it was made: the server closed or reset it before the whole
        /// response arrived (a body shorter than its `Content-Length`, a reset mid-body, a close
        /// before any answer). The server was reached; what it sent is not used.
        case connectionLost
        /// The server's answer broke HTTP's rules: conflicting `Content-Length` headers, a malformed
        /// chunk, a header too large to read, a body in an encoding the transport cannot decode.
        case invalidResponse
        /// The request was cancelled.
        case cancelled
        /// The server answered with a status outside the acceptable range.
        case httpStatus(Int)
        /// Redirects looped or went past the limit, or a redirect had no valid `Location`.
        case redirectFailed
        /// The body could not be turned into the expected type.
        case decodingFailed
        /// Any other transport failure; see ``underlyingError``.
        case transport
        /// A delegate hook turned the response into an error; see ``underlyingError``.
        case rejected
        /// The response body was longer than the allowed maximum
        /// (``ClientConfiguration/maximumResponseSize``); it was not read further.
        case responseTooLarge
        /// A local store (`CourierStore`) could not read or write its database; the message has
        /// SQLite's words and the file's path.
        case store
    }

    /// The class of failure.
    public var kind: Kind
    /// What went wrong, in words a user can act on.
    public var message: String
    /// The URL the request was sent to, when known.
    public var url: URL?
    /// The identifier of the failed request, when it got one.
    public var requestID: RequestID?
    /// The HTTP status code, when a response arrived.
    public var statusCode: Int?
    /// The response headers, when a response arrived.
    public var headers: HTTPHeaders?
    /// The response body, when a response arrived.
    public var body: Data?
    /// The error that caused this one, if any.
    public var underlyingError: (any Error)?
    /// The response body read as JSON, XML or text (set by ``APIClient`` when a body arrived).
    public var bodyValue: ResponseBodyValue?
    /// For ``Kind/decodingFailed``: where in the body decoding stopped, such as `orderedPizzas[1].pizzaID`.
    public var keyPath: String?
    /// What kind of failure this is; ``APIClient`` applies your ``ErrorHandling/classifier`` first.
    public var classification: ErrorClassification
    /// How the request went up to the failure: attempts (after retries), bytes, times. `nil` for
    /// an error made outside a request.
    public var metrics: RequestMetrics?
    /// A message to show a user: from the body (``ErrorHandling/messageExtractor``), else a plain
    /// sentence for the classification.
    public var userMessage: String

    /// Creates an error.
    public init(
        _ kind: Kind, _ message: String, url: URL? = nil, statusCode: Int? = nil,
        headers: HTTPHeaders? = nil, body: Data? = nil, underlyingError: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.underlyingError = underlyingError
        self.classification = .other
        self.userMessage = message
        self.classification = defaultClassification
        self.userMessage = Self.defaultUserMessage(for: classification) ?? message
    }

    /// Whether the request was cancelled.
    public var isCancelled: Bool { kind == .cancelled }

    /// The field errors of a 422 response, when its body had a known shape.
    public var validationErrors: ValidationErrors? {
        if case .validationFailed(let errors) = classification { return errors }
        return nil
    }

    /// The message, the URL and the underlying error.
    public var description: String {
        var text = "CourierError.\(kind): \(message)"
        if let url { text += " [\(url.absoluteString)]" }
        if let underlyingError { text += " (cause: \(underlyingError))" }
        return text
    }
}

extension CourierError: LocalizedError {
    /// The ``message``.
    public var errorDescription: String? { message }
}
