import Foundation

/// A request parameter value: what goes into a body or a query string.
///
/// Literals build values directly: `["name": "Ana", "age": 31, "tags": ["a", "b"], "avatar": .data(png)]`.
/// A body whose parameters hold ``data(_:fileName:mimeType:)`` or ``file(_:fileName:mimeType:)`` values
/// (at any depth) is sent as `multipart/form-data` whatever encoder the request names.
public enum Parameter: Sendable, Hashable {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number. Not-a-number and infinities cannot be encoded and fail the request.
    case double(Double)
    /// A Boolean, encoded as `true`/`false`.
    case bool(Bool)
    /// An explicit null (`null` in JSON, an empty value in a form or query).
    case null
    /// An ordered list of values.
    case array([Parameter])
    /// A nested object.
    case object([String: Parameter])
    /// Binary content, sent as a multipart file part.
    case data(Data, fileName: String? = nil, mimeType: String? = nil)
    /// The contents of a local file, sent as a multipart file part.
    case file(URL, fileName: String? = nil, mimeType: String? = nil)

    /// Whether this value, or any value nested in it, is binary (``data(_:fileName:mimeType:)`` or
    /// ``file(_:fileName:mimeType:)``).
    var containsBinary: Bool {
        switch self {
        case .data, .file: true
        case .array(let values): values.contains { $0.containsBinary }
        case .object(let values): values.values.contains { $0.containsBinary }
        case .string, .int, .double, .bool, .null: false
        }
    }
}

extension Parameter {
    /// The text a scalar is sent as in a form or multipart field; `nil` for arrays, objects and
    /// binary values.
    var textValue: String? {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): JSONWriter.format(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: ""
        case .array, .object, .data, .file: nil
        }
    }
}

/// A set of named parameters, as a request body or a query.
public typealias Parameters = [String: Parameter]

extension Dictionary where Key == String, Value == Parameter {
    /// Whether any value is binary at any depth (the body then goes out as multipart).
    package var containsBinary: Bool { values.contains { $0.containsBinary } }
}
