import Courier
import Foundation

/// Splits a response body into the objects an import stores.
enum ImportSource {
    /// The objects at `root` (a dotted key path, `"data.items"`) of a JSON or XML body: each
    /// element of an array, or the one object.
    static func elements(of body: Data, contentType: String?, root: String?) throws -> [ImportElement] {
        let path = RootKeyPath(root ?? "")
        var kind = BodyKind(contentType: contentType, body: body)
        if kind == .text || kind == .binary { kind = BodyKind(sniffing: body) }
        switch kind {
        case .xml:
            let document = try XMLTreeParser.parse(body)
            return try elements(of: XMLJSONConversion.object(of: document), at: path)
        case .text, .binary:
            throw ImportSourceError.notJSONOrXML
        case .json:
            break
        }
        if let ranges = try JSONElementScanner.elements(in: body, path: path.keys) {
            let start = body.startIndex
            return ranges.map { ImportElement(bytes: body[(start + $0.lowerBound)..<(start + $0.upperBound)]) }
        }
        return try elements(of: JSONValue.parse(body), at: path)
    }

    /// The objects at `path` of a parsed value.
    static func elements(of value: JSONValue, at path: RootKeyPath) throws -> [ImportElement] {
        let found = try path.value(in: value)
        switch found {
        case .array(let values): return try values.map(ImportElement.init(json:))
        case .object: return [try ImportElement(json: found)]
        case .null: return []
        default: throw ImportSourceError.notAList(path: path.text, found: "a single value")
        }
    }
}
