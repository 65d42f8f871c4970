import Foundation

/// Where a value sits, as a chain to its parent: the coding path is built only when asked (for an
/// error), not copied into an array for every value decoded.
final class CodingPathNode {
    let parent: CodingPathNode?
    let key: any CodingKey

    init(parent: CodingPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    static func path(_ node: CodingPathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = node
        while let node = current {
            keys.append(node.key)
            current = node.parent
        }
        return keys.reversed()
    }
}

/// The `Decoder` over one JSON value, applying ``ModelDecoder``'s rules.
struct ModelValueDecoder: Decoder {
    let value: JSONValue
    let node: CodingPathNode?
    let context: ModelDecodingContext
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    init(value: JSONValue, codingPath: [any CodingKey], context: ModelDecodingContext) {
        self.value = value
        self.context = context
        node = codingPath.reduce(nil) { CodingPathNode(parent: $0, key: $1) }
    }

    init(value: JSONValue, node: CodingPathNode?, context: ModelDecodingContext) {
        self.value = value
        self.node = node
        self.context = context
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object") }
        return KeyedDecodingContainer(ModelKeyedContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw mismatch("an array") }
        return ModelUnkeyedContainer(decoder: self, elements: array)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ModelSingleValueContainer(decoder: self) }

    func child(_ value: JSONValue, key: any CodingKey) -> ModelValueDecoder {
        ModelValueDecoder(value: value, node: CodingPathNode(parent: node, key: key), context: context)
    }

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

    /// Scalars by the conversion table; anything else through its `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if case .null = value, !(type is any ExpressibleByNilLiteral.Type) {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
        }
        switch type {
        case is String.Type:
            switch value {
            case .string(let text): return text as! T
            case .int(let number): return String(number) as! T
            case .double(let number): return JSONWriter.format(number) as! T
            case .bool(let flag): return String(flag) as! T
            default: throw mismatch("a string")
            }
        case is Bool.Type:
            switch value {
            case .bool(let flag): return flag as! T
            case .int(0): return false as! T
            case .int(1): return true as! T
            case .string(let text):
                switch text.lowercased() {
                case "true", "1", "yes": return true as! T
                case "false", "0", "no": return false as! T
                default: throw mismatch("a Boolean")
                }
            default: throw mismatch("a Boolean")
            }
        case is Date.Type:
            switch value {
            case .string(let text):
                guard let date = context.date(from: text) else { throw mismatch("a date") }
                return date as! T
            case .int(let seconds): return Date(timeIntervalSince1970: Double(seconds)) as! T
            case .double(let seconds): return Date(timeIntervalSince1970: seconds) as! T
            default: throw mismatch("a date")
            }
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
            return try T(from: self)
        }
    }

    private func decodeInteger<I: BinaryInteger & LosslessStringConvertible>(_ type: I.Type) throws -> I {
        let result: I? = switch value {
        case .int(let number): I(exactly: number)
        case .double(let number): number.isFinite && number == number.rounded() ? I(exactly: number) : nil
        case .string(let text): I(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
        guard let result else { throw mismatch("\(type)") }
        return result
    }

    private func decodeFloating<F: BinaryFloatingPoint & LosslessStringConvertible>(_ type: F.Type) throws -> F {
        let result: F? = switch value {
        case .int(let number): F(number)
        case .double(let number): F(number)
        case .string(let text): F(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
        guard let result else { throw mismatch("\(type)") }
        return result
    }
}

struct ModelKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ModelValueDecoder
    let object: [String: JSONValue]
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// The value for a property: the exact key first, then a key that converts to it, then `id`
    /// for `uid`.
    private func value(for key: Key) -> JSONValue? {
        guard let (payloadKey, value) = lookup(key) else { return nil }
        if decoder.context.keyMap != nil {
            decoder.context.keyMap?.record(
                path: DecodingErrorText.path(codingPath, topLevel: ""), property: key.stringValue,
                payloadKey: payloadKey, wasNull: value == .null)
        }
        return value
    }

    private func lookup(_ key: Key) -> (String, JSONValue)? {
        let name = key.stringValue
        if let exact = object[name] { return (name, exact) }
        let context = decoder.context
        for candidate in context.payloadKeys(for: name) {
            if let value = object[candidate] { return (candidate, value) }
        }
        for (payloadKey, value) in object where context.propertyName(for: payloadKey) == name {
            context.remember(payloadKey: payloadKey, for: name)
            return (payloadKey, value)
        }
        return name == "uid" ? object["id"].map { ("id", $0) } : nil
    }

    /// The payload's own keys (so a decoded dictionary keeps them as they were).
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { value(for: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = value(for: key) else { return true }
        return value == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = value(for: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is missing"))
        }
        return try decoder.child(value, key: key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(value(for: key) ?? .null, key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(value(for: key) ?? .null, key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(value(for: key) ?? .null, key: key) }
}

struct ModelUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: ModelValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: ModelValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    private mutating func next() throws -> ModelValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more elements"))
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], key: IndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return isAtEnd }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct ModelSingleValueContainer: SingleValueDecodingContainer {
    let decoder: ModelValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}
