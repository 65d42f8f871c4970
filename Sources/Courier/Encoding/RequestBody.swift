import Foundation

/// What a request sends as its body.
///
/// A dictionary literal makes a parameter body: `body: ["name": "Ana"]`.
public enum RequestBody: Sendable, ExpressibleByDictionaryLiteral {
    /// No body.
    case none
    /// Named parameters, encoded by the request's ``ParameterEncoding`` (JSON by default), or as
    /// multipart when any value is binary. On `GET` and `HEAD` they go into the query string.
    case parameters(Parameters)
    /// Any `Encodable` value, encoded by the client's ``DataEncoder`` (JSON by default).
    case encodable(any Encodable & Sendable)
    /// Bytes sent as they are, with their content type.
    case data(Data, contentType: String)
    /// Explicit multipart parts, in order; file parts are streamed from disk (seed 003's upload
    /// requests).
    case multipart([MultipartPart])

    /// A parameter body from a literal.
    public init(dictionaryLiteral elements: (String, Parameter)...) {
        self = .parameters(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// An `Encodable` body, encoded by the client's ``DataEncoder`` (JSON by default).
    public static func json<Body: Encodable & Sendable>(_ value: Body) -> RequestBody { .encodable(value) }
}
