import Foundation

/// A dotted key path to the part of a body a value is decoded from (`"object"`, `"data.items"`):
/// seed 004's `firstKey`. The one way a path is read, for `decoding(at:)` and store imports alike:
/// split at every `.` (`"a..b"` has an empty key in the middle, as JSON allows), and `""` is the
/// top level.
package struct RootKeyPath: Sendable {
    /// The keys, outermost first.
    package let keys: [String]
    /// The path as given.
    package let text: String

    package init(_ text: String) {
        self.text = text
        keys = text.isEmpty ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The JSON value at the path; a ``ModelDecodingError`` that names the missing key or the
    /// value that is not an object.
    package func value(in root: JSONValue) throws -> JSONValue {
        var current = root
        for (depth, key) in keys.enumerated() {
            guard let next = current[key] else { throw missing(depth: depth, isObject: current.objectValue != nil) }
            current = next
        }
        return current
    }

    /// The element at the path, below the document element (which stands for the top-level
    /// object, as a JSON body's outer braces do: `<user><object>…` is read with `"object"`).
    package func node(in document: XMLNode) throws -> XMLNode {
        var current = document
        for (depth, key) in keys.enumerated() {
            guard let next = current[key] else { throw missing(depth: depth, isObject: !current.children.isEmpty) }
            current = next
        }
        return current
    }

    /// `error` from decoding the value at the path, with its key path starting at the body's top.
    func prefixing(_ error: any Error) -> any Error {
        if var error = error as? ModelDecodingError {
            error.keyPath = error.keyPath.isEmpty ? text : text + (error.keyPath.hasPrefix("[") ? "" : ".") + error.keyPath
            return error
        }
        guard let error = error as? DecodingError else { return error }
        let prefix: [any CodingKey] = keys.map(RootKey.init)
        switch error {
        case .keyNotFound(let key, let context): return DecodingError.keyNotFound(key, prefixed(context, prefix))
        case .valueNotFound(let type, let context): return DecodingError.valueNotFound(type, prefixed(context, prefix))
        case .typeMismatch(let type, let context): return DecodingError.typeMismatch(type, prefixed(context, prefix))
        case .dataCorrupted(let context): return DecodingError.dataCorrupted(prefixed(context, prefix))
        @unknown default: return error
        }
    }

    private func prefixed(_ context: DecodingError.Context, _ prefix: [any CodingKey]) -> DecodingError.Context {
        DecodingError.Context(codingPath: prefix + context.codingPath, debugDescription: context.debugDescription, underlyingError: context.underlyingError)
    }

    private func missing(depth: Int, isObject: Bool) -> ModelDecodingError {
        let path = keys.prefix(depth + 1).joined(separator: ".")
        let parent = depth == 0 ? "the top level" : keys.prefix(depth).joined(separator: ".")
        let found = isObject ? "\(parent) has no key \"\(keys[depth])\"" : "\(parent) is not an object"
        return ModelDecodingError(keyPath: path, reason: "expected a value at the root key path \"\(text)\", but \(found)")
    }
}

/// A key of a ``RootKeyPath`` in a coding path.
private struct RootKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
