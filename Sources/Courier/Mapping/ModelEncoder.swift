import Foundation

/// Encodes models with the reverse of the seed's key rules (`userName` → `user_name`, `pizzaID` →
/// `pizza_id`, `uid` → `id`), dates in ``dateFormat``. Use it for request bodies
/// (``ClientConfiguration/encoder``) or, with the key map of a ``Mapped`` model, to write a model back under its
/// original keys (``Mapped``).
public struct ModelEncoder: DataEncoder {
    /// The pattern dates are written in (seed: `yyyy/MM/dd HH:mm:ss`).
    public var dateFormat: String
    /// The time zone dates are written in.
    public var timeZone: TimeZone

    /// Creates an encoder.
    public init(dateFormat: String = "yyyy/MM/dd HH:mm:ss", timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!) {
        self.dateFormat = dateFormat
        self.timeZone = timeZone
    }

    /// `application/json`.
    public var contentType: String { "application/json" }

    /// `value` as JSON bytes (object keys sorted).
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        var writer = JSONWriter()
        try writer.write(Parameter(try encodeValue(value, keyMap: nil)))
        return writer.data
    }

    /// `value` as a JSON value, its keys written by the reverse rules.
    public func encodeValue<T: Encodable>(_ value: T) throws -> JSONValue {
        try encodeValue(value, keyMap: nil)
    }

    /// `value` as a JSON value; with a `keyMap`, objects it covers use its keys and leave out
    /// properties it does not list (``Mapped/dictionaryRepresentation(using:)``).
    func encodeValue<T: Encodable>(_ value: T, keyMap: KeyMap?) throws -> JSONValue {
        let context = ModelEncodingContext(dateFormat: dateFormat, timeZone: timeZone, keyMap: keyMap)
        let slot = EncodingSlot()
        try ModelValueEncoder(slot: slot, codingPath: [], context: context).encodeValue(value)
        return slot.node?.json ?? .null
    }
}

extension Parameter {
    /// The parameter form of a JSON value.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(Parameter.init))
        case .object(let members): self = .object(members.mapValues(Parameter.init))
        }
    }
}

/// Settings of one encoding call.
final class ModelEncodingContext {
    let fixedFormat: FixedDateFormat?
    let dateFormat: String
    let timeZone: TimeZone
    let keyMap: KeyMap?
    /// Made on first use, once per call, for patterns the fixed format does not handle.
    private lazy var formatter = DateFormatter.posix(format: dateFormat, timeZone: timeZone)

    init(dateFormat: String, timeZone: TimeZone, keyMap: KeyMap?) {
        self.dateFormat = dateFormat
        self.timeZone = timeZone
        self.keyMap = keyMap
        fixedFormat = FixedDateFormat(dateFormat)
    }

    /// The date in the format; `nil` for one that has no text (an infinite or NaN interval, or
    /// one beyond ``FixedDateFormat/writableSeconds``).
    func string(from date: Date) -> String? {
        if let fixedFormat { return fixedFormat.string(from: date, timeZone: timeZone) }
        guard FixedDateFormat.writableSeconds.contains(date.timeIntervalSince1970) else { return nil }
        return formatter.string(from: date)
    }
}

/// What has been encoded at one place.
indirect enum EncodedNode {
    case leaf(JSONValue)
    case object(ObjectStorage)
    case array(ArrayStorage)

    var json: JSONValue {
        switch self {
        case .leaf(let value): value
        case .object(let storage): .object(storage.members.compactMapValues { $0.node?.json })
        case .array(let storage): .array(storage.elements.map { $0.node?.json ?? .null })
        }
    }
}

/// A place a value is encoded into.
final class EncodingSlot {
    var node: EncodedNode?
}

final class ObjectStorage {
    var members: [String: EncodingSlot] = [:]
}

final class ArrayStorage {
    var elements: [EncodingSlot] = []
}

struct ModelValueEncoder: Encoder {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    let context: ModelEncodingContext
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let storage: ObjectStorage
        if case .object(let existing) = slot.node {
            storage = existing
        } else {
            storage = ObjectStorage()
            slot.node = .object(storage)
        }
        let path = DecodingErrorText.path(codingPath, topLevel: "")
        return KeyedEncodingContainer(ModelKeyedEncodingContainer<Key>(
            encoder: self, storage: storage, keys: context.keyMap?.objects[path]))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let storage: ArrayStorage
        if case .array(let existing) = slot.node {
            storage = existing
        } else {
            storage = ArrayStorage()
            slot.node = .array(storage)
        }
        return ModelUnkeyedEncodingContainer(encoder: self, storage: storage)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ModelSingleValueEncodingContainer(encoder: self) }

    /// Scalars as JSON leaves (dates in the format), anything else through its `encode(to:)`.
    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let text as String: slot.node = .leaf(.string(text))
        case let flag as Bool: slot.node = .leaf(.bool(flag))
        case let date as Date:
            guard let text = context.string(from: date) else {
                throw EncodingError.invalidValue(date, .init(codingPath: codingPath, debugDescription: "the date \(date.timeIntervalSince1970) seconds from 1970 cannot be written"))
            }
            slot.node = .leaf(.string(text))
        case let url as URL: slot.node = .leaf(.string(url.absoluteString))
        case let data as Data: slot.node = .leaf(.string(data.base64EncodedString()))
        case let number as Double: slot.node = .leaf(Self.number(number))
        case let number as Float: slot.node = .leaf(Self.number(Double(number)))
        case let integer as any BinaryInteger:
            guard let int = Int(exactly: integer) else {
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(integer) does not fit in Int"))
            }
            slot.node = .leaf(.int(int))
        default:
            try value.encode(to: self)
        }
    }

    private static func number(_ value: Double) -> JSONValue {
        value == value.rounded() && abs(value) < 9_007_199_254_740_992 ? .int(Int(value)) : .double(value)
    }
}

struct ModelKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ModelValueEncoder
    let storage: ObjectStorage
    /// The original keys of this object, when writing back a ``Mapped`` model.
    let keys: [String: KeyMap.Entry]?
    var codingPath: [any CodingKey] { encoder.codingPath }

    /// The payload key for a property, or `nil` when the original payload did not have it.
    private func payloadKey(_ key: Key) -> String? {
        guard let keys else { return KeyMapping.payloadKey(for: key.stringValue) }
        return keys[key.stringValue]?.payloadKey
    }

    private func slot(for key: Key) -> EncodingSlot? {
        guard let name = payloadKey(key) else { return nil }
        let slot = storage.members[name] ?? EncodingSlot()
        storage.members[name] = slot
        return slot
    }

    mutating func encodeNil(forKey key: Key) throws { slot(for: key)?.node = .leaf(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard let slot = slot(for: key) else { return }
        try ModelValueEncoder(slot: slot, codingPath: codingPath + [key], context: encoder.context).encodeValue(value)
    }

    /// Optionals that are `nil`: left out, unless the original payload held `null` under the key.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { return try encode(value, forKey: key) }
        if keys?[key.stringValue]?.wasNull == true { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        ModelValueEncoder(slot: slot(for: key) ?? EncodingSlot(), codingPath: codingPath + [key], context: encoder.context).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ModelValueEncoder(slot: slot(for: key) ?? EncodingSlot(), codingPath: codingPath + [key], context: encoder.context).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ModelValueEncoder(slot: slot(for: key) ?? EncodingSlot(), codingPath: codingPath + [key], context: encoder.context)
    }
}

struct ModelUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: ModelValueEncoder
    let storage: ArrayStorage
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { storage.elements.count }

    private func next() -> ModelValueEncoder {
        let slot = EncodingSlot()
        let key = IndexKey(intValue: storage.elements.count)
        storage.elements.append(slot)
        return ModelValueEncoder(slot: slot, codingPath: codingPath + [key], context: encoder.context)
    }

    mutating func encodeNil() throws { next().slot.node = .leaf(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { next() }
}

struct ModelSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: ModelValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.slot.node = .leaf(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
