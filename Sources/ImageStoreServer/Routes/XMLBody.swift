import Courier
import Foundation

/// Writes JSON documents as XML for `?type=xml` responses: an object's members become child
/// elements, an array's elements become repeated `<item>` elements, scalars become text and `null`
/// an empty element.
enum XMLBody {
    /// The XML document for `json` (bytes of a JSON document) under a root element `root`.
    static func document(fromJSON json: Data, root: String) throws -> Data {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"#
        write(try JSONValue.parse(json), name: root, into: &text)
        return Data(text.utf8)
    }

    private static func write(_ value: JSONValue, name: String, into text: inout String) {
        switch value {
        case .object(let members):
            text += "<\(name)>"
            for key in members.keys.sorted() { write(members[key]!, name: key, into: &text) }
            text += "</\(name)>"
        case .array(let elements):
            text += "<\(name)>"
            for element in elements { write(element, name: "item", into: &text) }
            text += "</\(name)>"
        case .null: text += "<\(name)/>"
        case .bool(let flag): text += "<\(name)>\(flag)</\(name)>"
        case .int(let number): text += "<\(name)>\(number)</\(name)>"
        case .double(let number): text += "<\(name)>\(number)</\(name)>"
        case .string(let string): text += "<\(name)>\(escape(string))</\(name)>"
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
