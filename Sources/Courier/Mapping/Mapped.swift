/// A decoded model with the keys of the payload it came from (seed 002's `dictionaryRepresentation`).
///
/// ```swift
/// var mapped = try ModelDecoder().decodeMapped(User.self, from: data)
/// mapped.model.userName = "new"
/// let json = try mapped.dictionaryRepresentation()   // "user_name": "new", other keys as received
/// ```
///
/// Properties whose keys were absent from the payload stay absent; keys that held `null` and whose
/// property is still `nil` are written as `null`. Objects the payload did not have (a pizza added to
/// an array) are written with ``ModelEncoder``'s reverse rules.
public struct Mapped<Model: Codable & Sendable>: Sendable {
    /// The model; change it freely.
    public var model: Model
    /// The keys it was read from.
    let keyMap: KeyMap

    /// Wraps a model and its key map.
    init(model: Model, keyMap: KeyMap) {
        self.model = model
        self.keyMap = keyMap
    }

    /// The model's current values under the payload's original keys.
    public func dictionaryRepresentation(using encoder: ModelEncoder = ModelEncoder()) throws -> JSONValue {
        try encoder.encodeValue(model, keyMap: keyMap)
    }
}
