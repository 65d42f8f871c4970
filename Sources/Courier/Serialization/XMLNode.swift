/// An element of an XML document, as ``XMLTreeParser`` reads it: name, attributes, child elements
/// and text.
public struct XMLNode: Sendable, Hashable {
    /// The element name.
    public var name: String
    /// The attributes.
    public var attributes: [String: String]
    /// The child elements, in document order.
    public var children: [XMLNode]
    /// The element's own text (character data and CDATA), with surrounding white space trimmed.
    public var text: String

    /// Creates an element.
    public init(name: String, attributes: [String: String] = [:], children: [XMLNode] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The first child element called `name`.
    public subscript(name: String) -> XMLNode? { children.first { $0.name == name } }

    /// Every child element called `name`.
    public func all(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }
}
