import Foundation

/// Decodes `Decodable` models from JSON with the seed's rules (seed 002), with no `CodingKeys` in
/// the model: keys by the rules below, values converted as below, dates in a global format with a
/// per-call override.
///
/// Keys:
/// - `user_name` → `userName` (snake case to camel case);
/// - `OrderedPizzas` → `orderedPizzas` (a leading capital is lowered);
/// - a last word `id` becomes `ID`: `pizza_id` → `pizzaID` (and `pizzaId` → `pizzaID`);
/// - `id` is read for a property named `uid` when the payload has no `uid`;
/// - a payload key equal to the property name always wins over a converted one;
/// - a model written for `JSONDecoder`'s `.convertFromSnakeCase` works too: when no key converts
///   by the rules above, a key that converts by Foundation's rule is read (`pizza_id` for a
///   property `pizzaId`).
///
/// Conversions (anything else is a ``ModelDecodingError`` naming the key path, never a silent zero):
///
/// | property | accepts |
/// |---|---|
/// | integers | integers; numbers with no fraction; strings holding an integer (`"123"`) |
/// | `Double`, `Float` | numbers; strings holding a number (`"12.5"`) |
/// | `String` | strings; numbers (`5` → `"5"`); Booleans (`"true"`) |
/// | `Bool` | Booleans; `0`/`1`; `"true"`/`"false"`/`"1"`/`"0"`/`"yes"`/`"no"` (any case) |
/// | `Date` | strings in ``dateFormat`` (or the call's format), ISO 8601 strings, Unix seconds |
/// | `URL` | strings |
/// | `Data` | Base64 strings |
/// | optionals | `null` or a missing key → `nil` (for a non-optional: an error) |
///
/// Models are value types: a copy is a `let`, no `NSCopying` needed.
public struct ModelDecoder: DataDecoder {
    /// The date pattern for string dates (seed: `yyyy/MM/dd HH:mm:ss`).
    public var dateFormat: String
    /// The time zone of dates without an offset (UTC by default, so results do not depend on the machine).
    public var timeZone: TimeZone

    /// Creates a decoder.
    public init(dateFormat: String = "yyyy/MM/dd HH:mm:ss", timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!) {
        self.dateFormat = dateFormat
        self.timeZone = timeZone
    }

    /// Decodes `type` from JSON bytes.
    /// - Throws: ``ModelDecodingError`` with the key path, or the parse error for malformed JSON.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: try JSONValue.parse(data))
    }

    /// Decodes `type` from an already parsed JSON value, with `dateFormat` for this call only
    /// (seed: `modelDateFormat` per instance).
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, dateFormat: String? = nil) throws -> T {
        let context = ModelDecodingContext(dateFormat: dateFormat ?? self.dateFormat, timeZone: timeZone)
        do {
            return try ModelValueDecoder(value: value, codingPath: [], context: context).decodeValue(type)
        } catch let error as DecodingError {
            throw ModelDecodingError(error)
        }
    }

    /// Decodes `type` and remembers which payload key each property came from, so
    /// ``Mapped/dictionaryRepresentation(using:)`` can write it back with the original keys.
    public func decodeMapped<T: Codable & Sendable>(_ type: T.Type, from data: Data, dateFormat: String? = nil) throws -> Mapped<T> {
        let context = ModelDecodingContext(dateFormat: dateFormat ?? self.dateFormat, timeZone: timeZone)
        context.keyMap = KeyMap()
        do {
            let model = try ModelValueDecoder(value: try JSONValue.parse(data), codingPath: [], context: context).decodeValue(type)
            return Mapped(model: model, keyMap: context.keyMap ?? KeyMap())
        } catch let error as DecodingError {
            throw ModelDecodingError(error)
        }
    }

    /// Decodes `type` and also returns every ``Identified`` value found inside it (not `type`'s
    /// own value), each with the JSON it was decoded from, in the order they were decoded: the
    /// nested models a store keeps as their own rows. Calls that pass the same `session` share its
    /// caches (key spellings, the date pattern), as the elements of one list do in one call.
    package func decodeCollectingIdentified<T: Decodable>(
        _ type: T.Type, from value: JSONValue, in session: ModelDecodingSession
    ) throws -> (value: T, nested: [(model: any Identified, json: JSONValue)]) {
        let context = session.context
        context.collectsIdentified = true
        context.identified = []
        do {
            let decoded = try ModelValueDecoder(value: value, codingPath: [], context: context).decodeValue(type)
            return (decoded, context.identified)
        } catch let error as DecodingError {
            throw ModelDecodingError(error)
        }
    }

    /// Decodes `type` from JSON bytes, sharing `session`'s caches with other calls.
    package func decode<T: Decodable>(_ type: T.Type, from data: Data, in session: ModelDecodingSession) throws -> T {
        let context = session.context
        context.collectsIdentified = false
        do {
            return try ModelValueDecoder(value: try JSONValue.parse(data), codingPath: [], context: context).decodeValue(type)
        } catch let error as DecodingError {
            throw ModelDecodingError(error)
        }
    }

    /// A session for ``decodeCollectingIdentified(_:from:in:)`` calls with this decoder's settings.
    package func makeSession() -> ModelDecodingSession {
        ModelDecodingSession(context: ModelDecodingContext(dateFormat: dateFormat, timeZone: timeZone))
    }

    /// Decodes an array of objects into models (seed: `transformDictionaryArray:intoArrayOfModels:`).
    public func decodeArray<T: Decodable>(of type: T.Type, from values: [JSONValue], dateFormat: String? = nil) throws -> [T] {
        try decode([T].self, from: .array(values), dateFormat: dateFormat)
    }
}

/// Caches kept across the decoding calls of one task (not `Sendable`: one task at a time).
package final class ModelDecodingSession {
    let context: ModelDecodingContext

    init(context: ModelDecodingContext) {
        self.context = context
    }
}

/// Settings and caches shared by one decoding call.
final class ModelDecodingContext {
    let fixedFormat: FixedDateFormat?
    let formatter: DateFormatter?
    let timeZone: TimeZone
    private var propertyNames: [String: String] = [:]
    private var foundationNames: [String: String] = [:]
    /// The keys read, when the caller wants the model's ``Mapped`` form.
    var keyMap: KeyMap?
    /// Whether nested ``Identified`` values are gathered into ``identified``.
    var collectsIdentified = false
    var identified: [(model: any Identified, json: JSONValue)] = []

    init(dateFormat: String, timeZone: TimeZone) {
        self.timeZone = timeZone
        fixedFormat = FixedDateFormat(dateFormat)
        formatter = fixedFormat == nil ? DateFormatter.posix(format: dateFormat, timeZone: timeZone) : nil
    }

    /// Payload keys that served a property before, tried first: payloads repeat their keys.
    private var knownPayloadKeys: [String: [String]] = [:]

    func payloadKeys(for property: String) -> [String] { knownPayloadKeys[property] ?? [] }

    func remember(payloadKey: String, for property: String) {
        knownPayloadKeys[property, default: []].append(payloadKey)
    }

    /// ``KeyMapping/propertyName(for:)``, remembered: payloads repeat their keys.
    func propertyName(for key: String) -> String {
        if let known = propertyNames[key] { return known }
        let name = KeyMapping.propertyName(for: key)
        propertyNames[key] = name
        return name
    }

    /// ``KeyMapping/foundationPropertyName(for:)``, remembered.
    func foundationPropertyName(for key: String) -> String {
        if let known = foundationNames[key] { return known }
        let name = KeyMapping.foundationPropertyName(for: key)
        foundationNames[key] = name
        return name
    }

    func date(from text: String) -> Date? {
        if let fixedFormat, let date = fixedFormat.date(from: text, timeZone: timeZone) { return date }
        if let formatter, let date = formatter.date(from: text) { return date }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return Double(text).map { Date(timeIntervalSince1970: $0) }
    }
}

extension ModelDecodingError {
    /// The same failure with its key path as text: `""` at the top level, as ``keyPath`` says, so
    /// a root key path put in front of it reads `data`, never `data.the top level`.
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(keyPath: DecodingErrorText.path(context.codingPath + [key], topLevel: ""), reason: "is missing")
        case .valueNotFound(let type, let context):
            self.init(keyPath: DecodingErrorText.path(context.codingPath, topLevel: ""), reason: "expected \(type), found null")
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            self.init(keyPath: DecodingErrorText.path(context.codingPath, topLevel: ""), reason: context.debugDescription)
        @unknown default:
            self.init(keyPath: "", reason: "\(error)")
        }
    }
}
