import Foundation

/// An object's properties, found by the seed's key rules.
struct ModelKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: CodingPathNode?
    let object: [String: JSONValue]
    let context: ModelDecodingContext
    var codingPath: [any CodingKey] { CodingPathNode.path(node) }

    /// The value for a property: the exact key first, then a key that converts to it by the seed's
    /// rules, then one that converts to it by Foundation's, then `id` for `uid`.
    private func value(for key: Key) -> JSONValue? {
        guard let (payloadKey, value) = lookup(key) else { return nil }
        if context.keyMap != nil {
            context.keyMap?.record(
                path: DecodingErrorText.path(codingPath, topLevel: ""), property: key.stringValue,
                payloadKey: payloadKey, wasNull: value == .null)
        }
        return value
    }

    private func lookup(_ key: Key) -> (String, JSONValue)? {
        let name = key.stringValue
        if let exact = object[name] { return (name, exact) }
        for candidate in context.payloadKeys(for: name) {
            if let value = object[candidate] { return (candidate, value) }
        }
        guard let payloadKey = KeyMapping.matchingKey(
            for: name, among: object.keys, propertyName: context.propertyName(for:), foundationName: context.foundationPropertyName(for:)),
            let value = object[payloadKey]
        else { return nil }
        if payloadKey != "id" || name != "uid" { context.remember(payloadKey: payloadKey, for: name) }
        return (payloadKey, value)
    }

    private func child(_ value: JSONValue, _ key: Key) -> ModelValueDecoder {
        ModelValueDecoder(value: value, parent: node, key: key, context: context)
    }

    /// The decoder for a required property.
    private func required(_ key: Key) throws -> ModelValueDecoder {
        guard let value = value(for: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "is missing"))
        }
        return child(value, key)
    }

    /// The decoder for an optional property, or `nil` when it is missing or `null`.
    private func optional(_ key: Key) -> ModelValueDecoder? {
        guard let value = value(for: key), value != .null else { return nil }
        return child(value, key)
    }

    /// The payload's own keys (so a decoded dictionary keeps them as they were).
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { value(for: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = value(for: key) else { return true }
        return value == .null
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(key).decodeString() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try required(key).decodeInt() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try required(key).decodeDouble() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(key).decodeBool() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try required(key).decodeValue(type) }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(key)?.decodeString() }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(key)?.decodeInt() }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(key)?.decodeDouble() }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(key)?.decodeBool() }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(key)?.decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(value(for: key) ?? .null, key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(value(for: key) ?? .null, key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ModelValueDecoder(value: .object(object), parent: node, key: nil, context: context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { child(value(for: key) ?? .null, key) }
}
