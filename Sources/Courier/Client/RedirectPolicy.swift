/// How ``APIClient`` follows redirects, the same way on every transport.
///
/// - 301 and 302 turn `POST` into `GET` without a body, 303 turns any method but `HEAD` into `GET`;
///   307 and 308 keep the method and body.
/// - When a redirect leaves the original request's origin (scheme, host and port), the
///   ``sensitiveHeaders`` and the client's authentication headers are removed, so credentials never
///   reach another server.
public struct RedirectPolicy: Sendable {
    /// How many redirects one request may follow; past that it fails with
    /// ``CourierError/Kind/redirectFailed``. `0` follows none and returns the 3xx response.
    public var maximumRedirects: Int
    /// Headers removed when a redirect changes origin: by default `Authorization`,
    /// `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public var sensitiveHeaders: [String]

    /// Creates a policy.
    public init(maximumRedirects: Int = 5, sensitiveHeaders: [String] = HTTPHeaders.credentialFields) {
        self.maximumRedirects = maximumRedirects
        self.sensitiveHeaders = sensitiveHeaders
    }

    /// Follows no redirects.
    public static let none = RedirectPolicy(maximumRedirects: 0)
}
