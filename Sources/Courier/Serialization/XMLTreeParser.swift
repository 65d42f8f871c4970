import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Synchronization

/// Parses XML bytes into an ``XMLNode`` tree with Foundation's `XMLParser` (FoundationXML on Linux).
///
/// `XMLParser` ships with the toolchain, so the `Courier` library needs no XML package. External
/// entities are not resolved.
public enum XMLTreeParser {
    /// Parses `data` and returns the root element.
    /// - Throws: an error with the line and column of the first error.
    public static func parse(_ data: Data) throws -> XMLNode {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw XMLParseError(
                line: parser.lineNumber, column: parser.columnNumber,
                reason: parser.parserError.map { "\($0.localizedDescription)" } ?? "the document has no root element")
        }
        return root
    }
}

/// Why XML could not be parsed.
package struct XMLParseError: Error, Sendable, CustomStringConvertible {
    /// The line of the error.
    package var line: Int
    /// The column of the error.
    package var column: Int
    /// What the parser reported.
    package var reason: String

    /// `line:column: reason`.
    package var description: String { "XML error at line \(line), column \(column): \(reason)" }
}

/// Builds the tree from `XMLParser` events. Used by one parser on one thread at a time.
private final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XMLNode] = []
    private(set) var root: XMLNode?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(XMLNode(name: elementName, attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard var node = stack.popLast() else { return }
        node.text = node.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].children.append(node)
        }
    }
}
