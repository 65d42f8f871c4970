import Courier
import Foundation

/// Splits a response body into the objects an import stores.
enum ImportSource {
    /// The objects at `root` (a dotted key path, `"data.items"`) of a JSON or XML body: each
    /// element of an array, or the one object.
    static func elements(of body: Data, contentType: String?, root: String?) throws -> [ImportElement] {
        let path = root.map { RootKeyPath($0).keys } ?? []
        var kind = BodyKind(contentType: contentType, body: body)
        if kind == .text || kind == .binary { kind = BodyKind(sniffing: body) }
        switch kind {
        case .xml:
            let document = try XMLTreeParser.parse(body)
            return try elements(of: XMLJSONConversion.object(of: document), path: path)
        case .text, .binary:
            throw ImportSourceError.notJSONOrXML
        case .json:
            break
        }
        if let ranges = try JSONElementScanner.elements(in: body, path: path) {
            let start = body.startIndex
            return ranges.map { ImportElement(bytes: body[(start + $0.lowerBound)..<(start + $0.upperBound)]) }
        }
        return try elements(of: JSONValue.parse(body), path: path)
    }

    /// The objects at `path` of a parsed value.
    static func elements(of value: JSONValue, path: [String]) throws -> [ImportElement] {
        var current = value
        for (depth, component) in path.enumerated() {
            guard let next = current[component] else {
                throw ImportSourceError.rootNotFound(
                    path: path.prefix(depth + 1).joined(separator: "."), found: current.objectValue == nil ? "not an object" : "no such key")
            }
            current = next
        }
        switch current {
        case .array(let values): return try values.map(ImportElement.init(json:))
        case .object: return [try ImportElement(json: current)]
        case .null: return []
        default: throw ImportSourceError.notAList(path: path.joined(separator: "."), found: "a single value")
        }
    }
}
