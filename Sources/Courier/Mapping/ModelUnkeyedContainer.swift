import Foundation

/// An array's elements, in order.
struct ModelUnkeyedContainer: UnkeyedDecodingContainer {
    let node: CodingPathNode?
    let elements: [JSONValue]
    let context: ModelDecodingContext
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { CodingPathNode.path(node) }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(node: CodingPathNode?, elements: [JSONValue], context: ModelDecodingContext) {
        self.node = node
        self.elements = elements
        self.context = context
    }

    private mutating func next() throws -> ModelValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more elements"))
        }
        defer { currentIndex += 1 }
        return ModelValueDecoder(
            value: elements[currentIndex], parent: node, key: IndexKey(intValue: currentIndex), context: context)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return isAtEnd }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInt() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeDouble() }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

/// A single value, by the conversion table.
struct ModelSingleValueContainer: SingleValueDecodingContainer {
    let decoder: ModelValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInt() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}
