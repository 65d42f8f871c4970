/// An HTTP request method.
///
/// The common methods are available as static members (`.get`, `.post`, …); any other token can be
/// written as a string literal.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token as sent on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its token. The token is upper-cased.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// Creates a method from a string literal such as `"PROPFIND"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The method token.
    public var description: String { rawValue }

    /// `GET`: read a resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: create a resource or submit data.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: change part of a resource.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: like `GET`, without a response body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: ask which methods a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether requests with this method put their parameters in the URL rather than in a body
    /// (`GET` and `HEAD`).
    package var encodesParametersInURL: Bool { self == .get || self == .head }
}
