/// What kind of failure a ``CourierError`` is, for code that reacts to it (seed 004's
/// `ErrorHandler` types).
///
/// A value with static members, not an exhaustive enum: compare it with `==`, or `switch` over
/// ``CourierError/classification`` with a `default:` case, so that classes added in later
/// releases do not break your code.
///
/// ```swift
/// switch error.classification {
/// case .offline, .timedOut, .cannotConnect: showRetry()
/// case .unauthorized: signOut()
/// default:
///     if let fields = error.validationErrors { show(fields) } else { show(error.userMessage) }
/// }
/// ```
///
/// The classes that carry a value (``validationFailed(_:)``, ``clientError(_:)``,
/// ``serverError(_:)``, ``decodingFailed(keyPath:)``, ``custom(_:)``) are equal only with the same
/// value; to react to any of them, read ``name`` or the error's own ``CourierError/statusCode``,
/// ``CourierError/validationErrors`` and ``CourierError/keyPath``.
public struct ErrorClassification: Sendable, Hashable, CustomStringConvertible {
    /// The class's stable name: `offline`, `timedOut`, `cannotConnect`, `connectionLost`,
    /// `invalidResponse`, `cancelled`, `unauthorized`, `forbidden`, `notFound`, `validationFailed`,
    /// `clientError`, `serverError`, `decodingFailed`, `invalidRequest`, `insecureConnection`, `other`, or the name given
    /// to ``custom(_:)``.
    public let name: String
    /// The status, for ``clientError(_:)`` and ``serverError(_:)``.
    let status: Int?
    /// The field errors, for ``validationFailed(_:)``, when the body had a known shape.
    let validationErrors: ValidationErrors?
    /// Where decoding stopped, for ``decodingFailed(keyPath:)``.
    let keyPath: String?
    /// Whether the class is one ``custom(_:)`` made.
    let isCustom: Bool

    private init(
        _ name: String, status: Int? = nil, validationErrors: ValidationErrors? = nil, keyPath: String? = nil,
        isCustom: Bool = false
    ) {
        self.name = name
        self.status = status
        self.validationErrors = validationErrors
        self.keyPath = keyPath
        self.isCustom = isCustom
    }

    /// The device has no network connection.
    public static let offline = ErrorClassification("offline")
    /// The server did not respond in time.
    public static let timedOut = ErrorClassification("timedOut")
    /// The host refused the connection or could not be found.
    public static let cannotConnect = ErrorClassification("cannotConnect")
    /// The connection broke before the whole response arrived.
    public static let connectionLost = ErrorClassification("connectionLost")
    /// The server's answer was malformed (broken framing, an unreadable encoding).
    public static let invalidResponse = ErrorClassification("invalidResponse")
    /// The request was cancelled.
    public static let cancelled = ErrorClassification("cancelled")
    /// 401: the user must sign in again.
    public static let unauthorized = ErrorClassification("unauthorized")
    /// 403: the user may not do this.
    public static let forbidden = ErrorClassification("forbidden")
    /// 404: the resource does not exist.
    public static let notFound = ErrorClassification("notFound")
    /// The request could not be built (a bad URL, a body that cannot be encoded, a setting with a
    /// value that cannot be sent).
    public static let invalidRequest = ErrorClassification("invalidRequest")
    /// The TLS handshake failed over trust: the server's certificate was refused
    /// (``CourierError/Kind/untrustedServer``) or the server refused the client's
    /// (``CourierError/Kind/clientCertificateRefused``). Retrying does not help.
    public static let insecureConnection = ErrorClassification("insecureConnection")
    /// Anything else (redirect loops, transport failures, errors from delegate hooks).
    public static let other = ErrorClassification("other")

    /// 422: the server rejected the input; the field errors, when the body had a known shape.
    public static func validationFailed(_ errors: ValidationErrors?) -> ErrorClassification {
        ErrorClassification("validationFailed", validationErrors: errors)
    }

    /// Any other 4xx status.
    public static func clientError(_ status: Int) -> ErrorClassification {
        ErrorClassification("clientError", status: status)
    }

    /// A 5xx status.
    public static func serverError(_ status: Int) -> ErrorClassification {
        ErrorClassification("serverError", status: status)
    }

    /// The body could not be decoded; the key path where decoding stopped.
    public static func decodingFailed(keyPath: String?) -> ErrorClassification {
        ErrorClassification("decodingFailed", keyPath: keyPath)
    }

    /// A class your ``ErrorHandling/classifier`` chose.
    public static func custom(_ name: String) -> ErrorClassification {
        ErrorClassification(name, isCustom: true)
    }

    /// `notFound`, `clientError(409)`, `custom(conflict)`.
    public var description: String {
        if isCustom { return "custom(\(name))" }
        if let status { return "\(name)(\(status))" }
        if let keyPath { return "\(name)(\(keyPath))" }
        return name
    }
}
