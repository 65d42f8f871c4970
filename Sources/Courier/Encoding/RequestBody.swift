import Foundation

/// What a request sends as its body. A value with static members, so later releases can add kinds
/// of body without breaking an app's code.
///
/// A dictionary literal makes a parameter body: `body: ["name": "Ana"]`.
public struct RequestBody: Sendable, ExpressibleByDictionaryLiteral {
    /// The kinds of body, for Courier's own stages.
    enum Content: Sendable {
        case none
        case parameters(Parameters)
        case encodable(any Encodable & Sendable)
        case data(Data, contentType: String)
        case multipart([MultipartPart])
    }

    let content: Content

    init(_ content: Content) {
        self.content = content
    }

    /// No body.
    // Computed, not a stored `static let`: built with `-cross-module-optimization` (Swift 6.3.1),
    // a client of the stored one crashed in the first request it sent, which took it as the default
    // body of `Request.init`: it looked read before it was initialised (`Scripts/check-cmo.sh`).
    public static var none: RequestBody { RequestBody(.none) }

    /// Named parameters, encoded by the request's ``ParameterEncoding`` (JSON by default), or as
    /// multipart when any value is binary. On `GET` and `HEAD` they go into the query string.
    public static func parameters(_ parameters: Parameters) -> RequestBody { RequestBody(.parameters(parameters)) }

    /// An `Encodable` body, encoded by the client's ``DataEncoder`` (JSON by default).
    public static func json<Body: Encodable & Sendable>(_ value: Body) -> RequestBody { RequestBody(.encodable(value)) }

    /// Bytes sent as they are, with their content type.
    public static func data(_ data: Data, contentType: String) -> RequestBody { RequestBody(.data(data, contentType: contentType)) }

    /// Explicit multipart parts, in order; file parts are streamed from disk (seed 003's upload
    /// requests).
    public static func multipart(_ parts: [MultipartPart]) -> RequestBody { RequestBody(.multipart(parts)) }

    /// A parameter body from a literal.
    public init(dictionaryLiteral elements: (String, Parameter)...) {
        self.init(.parameters(Dictionary(elements, uniquingKeysWith: { _, last in last })))
    }
}
