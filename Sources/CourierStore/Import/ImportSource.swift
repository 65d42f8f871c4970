import Courier
import Foundation

/// Splits a response body into the objects an import stores.
enum ImportSource {
    /// The objects at `root` (a dotted key path, `"data.items"`) of a JSON or XML body: each
    /// element of an array, or the one object. XML objects are read as `send` reads them, by
    /// ``XMLTreeDecoder`` with `decoder`'s date rules, and kept as the JSON of what `Model` read.
    static func elements<Model: Decodable>(
        of body: Data, contentType: String?, root: String?, as model: Model.Type, decoder: ModelDecoder
    ) throws -> [ImportElement] {
        let path = RootKeyPath(root ?? "")
        var kind = BodyKind(contentType: contentType, body: body)
        if kind == .text || kind == .binary { kind = BodyKind(sniffing: body) }
        switch kind {
        case .xml:
            let node = try path.node(in: XMLTreeParser.parse(body))
            return try elements(of: node, as: Model.self, reader: .matching(decoder))
        case .text, .binary:
            throw ImportSourceError.notJSONOrXML
        case .json:
            break
        }
        switch try JSONParser.elements(in: body, path: path.keys) {
        case .elements(let ranges):
            let start = body.startIndex
            return ranges.map { ImportElement(bytes: body[(start + $0.lowerBound)..<(start + $0.upperBound)]) }
        case .other(let found):
            throw ImportSourceError.notAList(path: path.text, found: found)
        case nil:
            break
        }
        return try elements(of: JSONValue.parse(body), at: path)
    }

    /// The objects of an element: its children when they are a list (they repeat one name, or a
    /// lone `<item>`), else the element as one object, or, when it does not read as one and has
    /// one child, that child as a list of one (`<images><image>…</image></images>`). An empty
    /// element has none.
    static func elements<Model: Decodable>(of node: XMLNode, as model: Model.Type, reader: XMLTreeDecoder) throws -> [ImportElement] {
        if node.children.isEmpty, node.attributes.isEmpty, node.text.isEmpty { return [] }
        func list() throws -> [ImportElement] {
            guard case .array(let objects) = try reader.decodeReading([Model].self, from: node).json else { return [] }
            return try objects.map(ImportElement.init(json:))
        }
        if let first = node.children.first, node.children.allSatisfy({ $0.name == first.name }),
           node.children.count > 1 || first.name == "item" {
            return try list()
        }
        do {
            return [try ImportElement(json: reader.decodeReading(Model.self, from: node).json)]
        } catch {
            guard node.children.count == 1, let one = try? list() else { throw error }
            return one
        }
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
