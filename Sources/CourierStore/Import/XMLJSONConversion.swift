import Courier

/// Reads an XML tree as JSON, so XML responses are imported and stored through the same model
/// mapping (``ModelDecoder``'s key rules and conversions) as JSON ones.
///
/// The document element is the top-level object (its name is not a key). An element with child
/// elements is an object of them, with attributes as string members; children that repeat one
/// name (or a lone `<item>`) make a list (`<images><item>…</item><item>…</item></images>`); an
/// element with only text is that string, and an empty one is `null`.
enum XMLJSONConversion {
    static func object(of node: XMLNode) -> JSONValue {
        if node.children.isEmpty {
            if !node.attributes.isEmpty { return .object(node.attributes.mapValues(JSONValue.string)) }
            return node.text.isEmpty ? .null : .string(node.text)
        }
        if let first = node.children.first, node.children.allSatisfy({ $0.name == first.name }),
           node.children.count > 1 || first.name == "item" {
            return .array(node.children.map(object(of:)))
        }
        var members = node.attributes.mapValues(JSONValue.string)
        var repeated: [String: [JSONValue]] = [:]
        for child in node.children {
            let value = object(of: child)
            if let existing = members[child.name] {
                repeated[child.name, default: [existing]].append(value)
            }
            members[child.name] = value
        }
        for (name, values) in repeated { members[name] = .array(values) }
        return .object(members)
    }
}
