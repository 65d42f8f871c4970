/// Describes a `DecodingError` with its key path, in plain words.
package enum DecodingErrorText {
    package static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "the key \"\(key.stringValue)\" is missing at \(path(context.codingPath))"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null at \(path(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }

    /// The key path of a `DecodingError` (with the missing key for `keyNotFound`), else `nil`.
    package static func keyPath(of error: any Error) -> String? {
        if let error = error as? ModelDecodingError { return error.keyPath.isEmpty ? nil : error.keyPath }
        guard let error = error as? DecodingError else { return nil }
        switch error {
        case .keyNotFound(let key, let context): return path(context.codingPath + [key])
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            return context.codingPath.isEmpty ? nil : path(context.codingPath)
        @unknown default: return nil
        }
    }

    /// A key path such as `orderedPizzas[1].pizzaID`, or `the top level`.
    package static func path(_ codingPath: [any CodingKey], topLevel: String = "the top level") -> String {
        guard !codingPath.isEmpty else { return topLevel }
        var text = ""
        for key in codingPath {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text
    }
}
