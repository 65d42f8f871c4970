import Foundation

/// The one error type Courier throws.
///
/// It says what went wrong in ``message``, classifies it in ``kind`` (compare it with `==`, or
/// `switch` over it with a `default:`: new kinds are added in minor releases), and carries
/// what is known: the HTTP status, headers and body of a response, the request's URL and identifier,
/// and the underlying error.
public struct CourierError: Error, Sendable, CustomStringConvertible {
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
        classification.validationErrors
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
