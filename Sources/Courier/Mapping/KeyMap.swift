/// Which payload key each property was read from, per object path (`""`, `favoritePizza`,
/// `orderedPizzas[1]`), so a model can be written back with its original keys.
struct KeyMap: Sendable, Hashable {
    /// How one property was read.
    struct Entry: Sendable, Hashable {
        /// The key in the payload.
        var payloadKey: String
        /// Whether the payload held `null` there.
        var wasNull: Bool
    }

    /// Path → property name → entry.
    var objects: [String: [String: Entry]] = [:]

    /// Creates an empty map.
    init() {}

    mutating func record(path: String, property: String, payloadKey: String, wasNull: Bool) {
        objects[path, default: [:]][property] = Entry(payloadKey: payloadKey, wasNull: wasNull)
    }
}
