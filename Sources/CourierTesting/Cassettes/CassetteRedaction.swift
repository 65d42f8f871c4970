import Courier
import Foundation

/// What a ``Cassette`` keeps out of its file: the values of secret headers, query parameters and
/// body fields are replaced by ``placeholder`` before anything is written, and so is every other
/// appearance of those values in the exchange and the ones after it (in URLs, other headers and
/// bodies; as written, percent-encoded and base64-encoded).
///
/// ```swift
/// var redaction = CassetteRedaction.standard
/// redaction.queryParameters = ["api_key"]
/// redaction.bodyFields = ["password", "refresh_token"]
/// ```
///
/// Requests are redacted the same way before they are matched against recorded ones, so a
/// recorded `?api_key=REDACTED` matches whatever key the test sends. A replayed response carries
/// the placeholder where the secret was: a token header captured by ``APIClient`` from a replayed
/// login is the placeholder, sent back on later requests, which match as recorded.
public struct CassetteRedaction: Sendable, Hashable {
    /// Header names (any case) whose values are secret. For `Authorization` and
    /// `Proxy-Authorization` the scheme (`Bearer`, `Basic`) is kept; for `Cookie` and `Set-Cookie`
    /// the cookie names and attributes.
    public var headers: Set<String>
    /// Query parameter names whose values are secret.
    public var queryParameters: Set<String>
    /// Field names (any depth) of JSON bodies and of `application/x-www-form-urlencoded` bodies
    /// whose values are secret, in requests and responses.
    public var bodyFields: Set<String>
    /// What replaces a secret. It must be a valid header value and URL text.
    public var placeholder: String

    /// Creates a redaction.
    public init(
        headers: Set<String> = CassetteRedaction.standardHeaders, queryParameters: Set<String> = [], bodyFields: Set<String> = [],
        placeholder: String = "REDACTED"
    ) {
        self.headers = headers
        self.queryParameters = queryParameters
        self.bodyFields = bodyFields
        self.placeholder = placeholder
    }

    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let standardHeaders = Set(HTTPHeaders.credentialFields)

    /// The standard headers, no query parameters and no body fields.
    public static let standard = CassetteRedaction()

    /// The standard headers and the authentication headers `configuration` captures and sends
    /// (``ClientConfiguration/authenticationHeaders``).
    public static func standard(for configuration: ClientConfiguration) -> CassetteRedaction {
        CassetteRedaction(headers: standardHeaders.union(configuration.authenticationHeaders))
    }

}
