import Foundation

/// Decodes `Decodable` models from XML, through the ``XMLNode`` tree (so no XML package is needed).
///
/// Mapping: a keyed container reads child elements (then attributes) by name; an unkeyed container
/// reads an element's children in order (`<pizzas><item>…</item><item>…</item></pizzas>`), or the
/// siblings when a name repeats (`<tag>a</tag><tag>b</tag>`); scalars are converted from the
/// element's text (`Bool` accepts `true`/`false`/`1`/`0`; `Date` as ``ModelDecoder`` reads it: the
/// ``dateFormat``, ISO 8601 or Unix seconds; `Data` Base64). An empty element (`<x/>`) or a missing
/// one decodes as `nil` for optionals.
///
/// Use it per request (`request.decoder = XMLTreeDecoder()`) or per client.
public struct XMLTreeDecoder: DataDecoder {
    /// How element and attribute names map to property names: a value with static members.
    public struct KeyDecoding: Sendable, Hashable {
        let convertsKeys: Bool

        /// Names are used as they are.
        public static let useDefaultKeys = KeyDecoding(convertsKeys: false)
        /// The key rules of ``ModelDecoder``, the same for JSON and XML: `user_name` is read for
        /// `userName`, `pizza_id` for `pizzaID` (and for `pizzaId`, Foundation's rule), `id` for `uid`.
        public static let modelRules = KeyDecoding(convertsKeys: true)
    }

    /// How element names map to property names; ``KeyDecoding/modelRules`` by default.
    public var keyDecoding: KeyDecoding
    /// The date pattern for dates written as text, as ``ModelDecoder/dateFormat`` (the seed's
    /// `yyyy/MM/dd HH:mm:ss` by default); ISO 8601 and Unix seconds are read too.
    public var dateFormat: String
    /// The time zone of dates without an offset (UTC by default).
    public var timeZone: TimeZone

    /// Creates a decoder.
    public init(keyDecoding: KeyDecoding = .modelRules, dateFormat: String = "yyyy/MM/dd HH:mm:ss", timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!) {
        self.keyDecoding = keyDecoding
        self.dateFormat = dateFormat
        self.timeZone = timeZone
    }

    /// The decoder a client uses for an XML answer when its own decoder is for JSON: the same
    /// date rules as `decoder` when it is a ``ModelDecoder``, so one payload reads the same in
    /// either format (and through a store import, which reads XML with a ``ModelDecoder``).
    package static func matching(_ decoder: any DataDecoder) -> XMLTreeDecoder {
        if let xml = decoder as? XMLTreeDecoder { return xml }
        guard let model = decoder as? ModelDecoder else { return XMLTreeDecoder() }
        return XMLTreeDecoder(dateFormat: model.dateFormat, timeZone: model.timeZone)
    }

    /// Parses `data` as XML and decodes `type` from its root element.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: try XMLTreeParser.parse(data))
    }

    /// Decodes `type` from an element.
    public func decode<T: Decodable>(_ type: T.Type, from node: XMLNode) throws -> T {
        let dates = ModelDecodingContext(dateFormat: dateFormat, timeZone: timeZone)
        return try XMLNodeDecoder(node: node, codingPath: [], keyDecoding: keyDecoding, dates: dates, slot: nil).decodeValue(type)
    }

    /// Decodes `type` from an element, and gives what it read as JSON: the elements and attributes
    /// under their own names, a list wherever `type` read a list, scalars as the values read
    /// (dates, `Data` and URLs as their text). A ``ModelDecoder`` with this decoder's date rules
    /// decodes `type` from that JSON as this decoder did from the XML: a store import keeps XML
    /// objects that way, so XML reads the same through `send` and through an import.
    package func decodeReading<T: Decodable>(_ type: T.Type, from node: XMLNode) throws -> (value: T, json: JSONValue) {
        let dates = ModelDecodingContext(dateFormat: dateFormat, timeZone: timeZone)
        let slot = ReadSlot()
        let value = try XMLNodeDecoder(node: node, codingPath: [], keyDecoding: keyDecoding, dates: dates, slot: slot).decodeValue(type)
        return (value, slot.json)
    }
}

/// What one decoding read, as it is read: a tree of slots that becomes a JSON value. Members and
/// elements are added in place (no copy of the slot's dictionary or array per addition).
final class ReadSlot {
    private enum Kind { case unread, value, object, list }

    private var kind = Kind.unread
    private var value = JSONValue.null
    private var members: [String: ReadSlot] = [:]
    private var elements: [ReadSlot] = []

    /// Records a scalar (or `null`) read here.
    func record(_ value: JSONValue) {
        kind = .value
        self.value = value
    }

    /// Marks an object read here (also one none of whose members were read).
    func beginObject() {
        if kind != .object { kind = .object }
    }

    /// The slot of member `name` of an object read here.
    func member(_ name: String) -> ReadSlot {
        beginObject()
        if let slot = members[name] { return slot }
        let slot = ReadSlot()
        members[name] = slot
        return slot
    }

    /// Marks a list read here.
    func beginList() {
        if kind != .list { kind = .list }
    }

    /// The slot of the next element of a list read here.
    func nextElement() -> ReadSlot {
        beginList()
        let slot = ReadSlot()
        elements.append(slot)
        return slot
    }

    var json: JSONValue {
        switch kind {
        case .unread: .null
        case .value: value
        case .object: .object(members.compactMapValues { $0.kind == .unread ? nil : $0.json })
        case .list: .array(elements.map(\.json))
        }
    }
}

/// The `Decoder` over one element.
struct XMLNodeDecoder: Decoder {
    let node: XMLNode
    let codingPath: [any CodingKey]
    let keyDecoding: XMLTreeDecoder.KeyDecoding
    /// The date rules, shared by every element of one decoding.
    let dates: ModelDecodingContext
    /// Where what is read here is recorded, when the decoding records what it reads
    /// (``XMLTreeDecoder/decodeReading(_:from:)``).
    let slot: ReadSlot?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        slot?.beginObject()
        return KeyedDecodingContainer(XMLKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        slot?.beginList()
        return XMLUnkeyedContainer(decoder: self, elements: node.children)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { XMLSingleValueContainer(decoder: self) }

    var isEmpty: Bool { node.text.isEmpty && node.children.isEmpty && node.attributes.isEmpty }

    /// The decoder of `node`, read from here under `key`, recording into `slot`.
    func child(_ node: XMLNode, key: any CodingKey, slot: ReadSlot?) -> XMLNodeDecoder {
        XMLNodeDecoder(node: node, codingPath: codingPath + [key], keyDecoding: keyDecoding, dates: dates, slot: slot)
    }

    /// Decodes scalars from the text, `Date`/`Data`/`URL` specially, anything else through `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        let text = node.text
        switch type {
        case is String.Type:
            slot?.record(.string(text))
            return text as! T
        case is Bool.Type:
            let flag: Bool
            switch text.lowercased() {
            case "true", "1", "yes": flag = true
            case "false", "0", "no": flag = false
            default: throw mismatch(type, text)
            }
            slot?.record(.bool(flag))
            return flag as! T
        case is Date.Type:
            guard let date = dates.date(from: text) else { throw mismatch(type, text) }
            slot?.record(.string(text))
            return date as! T
        case is Data.Type:
            guard let data = Data(base64Encoded: text) else { throw mismatch(type, text) }
            slot?.record(.string(text))
            return data as! T
        case is URL.Type:
            guard let url = URL(string: text) else { throw mismatch(type, text) }
            slot?.record(.string(text))
            return url as! T
        case let scalar as any LosslessStringConvertible.Type:
            guard let value = scalar.init(text) else { throw mismatch(type, text) }
            if let slot { slot.record(Self.json(of: value, text: text)) }
            return value as! T
        default:
            return try T(from: self)
        }
    }

    /// A scalar read from `text`, as JSON: integers and floating-point numbers as numbers.
    private static func json(of value: Any, text: String) -> JSONValue {
        switch value {
        case let number as any BinaryInteger: Int(exactly: number).map(JSONValue.int) ?? .string(text)
        case let number as Double: .double(number)
        case let number as Float: .double(Double(number))
        default: .string(text)
        }
    }

    func mismatch(_ type: Any.Type, _ text: String) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found \"\(text)\" in <\(node.name)>."))
    }
}

struct XMLKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: XMLNodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// The element name for a key.
    private func name(_ key: Key) -> String {
        guard decoder.keyDecoding.convertsKeys else { return key.stringValue }
        return KeyMapping.matchingKey(for: key.stringValue, among: decoder.node.children.lazy.map(\.name))
            ?? KeyMapping.matchingKey(for: key.stringValue, among: decoder.node.attributes.keys)
            ?? key.stringValue
    }

    /// The element for `key`: the child of that name (a wrapper holding all of them when it repeats),
    /// else an attribute of that name as a text element.
    private func element(_ key: Key) -> XMLNode? {
        let name = name(key)
        let matches = decoder.node.all(name)
        if matches.count > 1 { return XMLNode(name: name, children: matches) }
        if let match = matches.first { return match }
        return decoder.node.attributes[name].map { XMLNode(name: name, text: $0) }
    }

    var allKeys: [Key] {
        (decoder.node.children.map(\.name) + decoder.node.attributes.keys).compactMap {
            Key(stringValue: decoder.keyDecoding.convertsKeys ? KeyMapping.propertyName(for: $0) : $0)
        }
    }

    func contains(_ key: Key) -> Bool { element(key) != nil }

    /// The decoder of `element`, read under `key`, recording under the element's own name.
    private func child(_ element: XMLNode, key: Key) -> XMLNodeDecoder {
        decoder.child(element, key: key, slot: decoder.slot?.member(element.name))
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let element = element(key) else { return true }
        let child = child(element, key: key)
        guard child.isEmpty else { return false }
        child.slot?.record(.null)
        return true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let element = element(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No element <\(name(key))> in <\(decoder.node.name)>."))
        }
        return try child(element, key: key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard let element = element(key) else { throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No element")) }
        return try child(element, key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard let element = element(key) else { throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No element")) }
        return try child(element, key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { child(element(key) ?? XMLNode(name: name(key)), key: key) }
}

struct XMLUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: XMLNodeDecoder
    let elements: [XMLNode]
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: XMLNodeDecoder, elements: [XMLNode]) {
        self.decoder = decoder
        self.elements = elements
    }

    private mutating func next() throws -> XMLNodeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "No more elements in <\(decoder.node.name)>."))
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], key: IndexKey(intValue: currentIndex), slot: decoder.slot?.nextElement())
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return true }
        guard decoder.child(elements[currentIndex], key: IndexKey(intValue: currentIndex), slot: nil).isEmpty else { return false }
        decoder.slot?.nextElement().record(.null)
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

struct XMLSingleValueContainer: SingleValueDecodingContainer {
    let decoder: XMLNodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        guard decoder.isEmpty else { return false }
        decoder.slot?.record(.null)
        return true
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}

/// An array index as a coding key.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(intValue: Int) {
        self.intValue = intValue
        stringValue = "\(intValue)"
    }

    init?(stringValue: String) { return nil }
}
