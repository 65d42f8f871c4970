import Foundation

/// The `Decoder` over one JSON value, applying ``ModelDecoder``'s rules.
///
/// A value keeps its parent's path node and its own key; a node of its own is made only when it
/// opens a container, so scalars cost no allocation for their coding path.
struct ModelValueDecoder: Decoder {
    let value: JSONValue
    let parent: CodingPathNode?
    let key: (any CodingKey)?
    let context: ModelDecodingContext
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    /// This value's place as a node, for the containers it opens.
    var node: CodingPathNode? { key.map { CodingPathNode(parent: parent, key: $0) } ?? parent }

    init(value: JSONValue, codingPath: [any CodingKey], context: ModelDecodingContext) {
        self.value = value
        self.context = context
        parent = codingPath.reduce(nil) { CodingPathNode(parent: $0, key: $1) }
        key = nil
    }

    init(value: JSONValue, parent: CodingPathNode?, key: (any CodingKey)?, context: ModelDecodingContext) {
        self.value = value
        self.parent = parent
        self.key = key
        self.context = context
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object") }
        return KeyedDecodingContainer(ModelKeyedContainer<Key>(node: node, object: object, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw mismatch("an array") }
        return ModelUnkeyedContainer(node: node, elements: array, context: context)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ModelSingleValueContainer(decoder: self) }

    /// What was found, for messages.
    var found: String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .int(let number): "the number \(number)"
        case .double(let number): "the number \(number)"
        case .string(let text): "the string \"\(text.count > 40 ? text.prefix(40) + "…" : Substring(text))\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(found)"))
    }

    func nullFound(_ type: Any.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
    }

    /// Scalars by the conversion table; anything else through its `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if case .null = value, !(type is any ExpressibleByNilLiteral.Type) { throw nullFound(type) }
        switch type {
        case is String.Type: return try decodeString() as! T
        case is Int.Type: return try decodeInt() as! T
        case is Bool.Type: return try decodeBool() as! T
        case is Double.Type: return try decodeDouble() as! T
        case is Date.Type: return try decodeDate() as! T
        case is URL.Type:
            guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch("a URL") }
            return url as! T
        case is Data.Type:
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw mismatch("Base64 data") }
            return data as! T
        case let integer as any (BinaryInteger & LosslessStringConvertible).Type:
            return try decodeInteger(integer) as! T
        case let floating as any (BinaryFloatingPoint & LosslessStringConvertible).Type:
            return try decodeFloating(floating) as! T
        default:
            let decoded = try T(from: self)
            if context.collectsIdentified, parent != nil || key != nil, let model = decoded as? any Identified {
                context.identified.append((model, value))
            }
            return decoded
        }
    }
}
