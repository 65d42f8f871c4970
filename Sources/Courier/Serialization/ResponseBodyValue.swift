import Foundation

/// A response body read without a model: JSON, XML or text, chosen by `Content-Type` and, when the
/// type says nothing useful, by looking at the bytes.
public enum ResponseBodyValue: Sendable, Hashable {
    /// A JSON document.
    case json(JSONValue)
    /// An XML document's root element.
    case xml(XMLNode)
    /// Anything else that is UTF-8 text (an HTML error page, plain text).
    case text(String)
    /// Bytes that are not text.
    case binary(Data)

    /// Reads `body` as the `contentType` says; a body that does not parse as its declared type falls
    /// back to text (or binary). Never throws.
    public static func read(_ body: Data, contentType: String?) -> ResponseBodyValue {
        let kind = BodyKind(contentType: contentType, body: body)
        switch kind {
        case .json:
            if let value = try? JSONValue.parse(body) { return .json(value) }
        case .xml:
            if let root = try? XMLTreeParser.parse(body) { return .xml(root) }
        case .text, .binary:
            break
        }
        if let text = String(validating: body, as: UTF8.self) { return .text(text) }
        return .binary(body)
    }

    /// The JSON value, if this is JSON.
    public var json: JSONValue? { if case .json(let value) = self { value } else { nil } }
    /// The root element, if this is XML.
    public var xml: XMLNode? { if case .xml(let value) = self { value } else { nil } }
    /// The text, if this is text.
    public var text: String? { if case .text(let value) = self { value } else { nil } }
}

/// What a body claims, or looks like, to be.
package enum BodyKind {
    case json, xml, text, binary

    /// By `Content-Type`, else by sniffing.
    package init(contentType: String?, body: Data) {
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        self = BodyKind(mediaType: type) ?? BodyKind(sniffing: body)
    }

    init?(mediaType: String) {
        switch mediaType {
        case "application/json", "text/json": self = .json
        case _ where mediaType.hasSuffix("+json"): self = .json
        case "application/xml", "text/xml": self = .xml
        case _ where mediaType.hasSuffix("+xml"): self = .xml
        case "text/html", "text/plain": self = .text
        case _ where mediaType.hasPrefix("text/"): self = .text
        default: return nil
        }
    }

    /// JSON when the first non-blank byte opens an object or array; XML when it opens a tag that is
    /// not an HTML document; else text or binary.
    package init(sniffing data: Data) {
        guard let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) else {
            self = .text
            return
        }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): self = .json
        case UInt8(ascii: "<"):
            let head = String(decoding: data.prefix(256), as: UTF8.self).lowercased()
            self = head.contains("<html") || head.contains("<!doctype html") ? .text : .xml
        default:
            self = data.prefix(1024).contains(0) ? .binary : .text
        }
    }
}
