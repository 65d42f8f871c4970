/// The seed's key rules (seed 002): how a payload key is read for a model property.
///
/// - `user_name` → `userName` (snake case to camel case);
/// - `OrderedPizzas` → `orderedPizzas` (a leading capital is lowered);
/// - a last word `id` becomes `ID`: `pizza_id` → `pizzaID` (and `pizzaId` → `pizzaID`);
/// - `id` is read for a property named `uid` when the payload has no `uid`;
/// - a payload key equal to the property name always wins over a converted one;
/// - a model written for `JSONDecoder`'s `.convertFromSnakeCase` works too: when no key converts
///   by the rules above, a key that converts by Foundation's rule is read (`pizza_id` for a
///   property `pizzaId`, see ``foundationPropertyName(for:)``).
package enum KeyMapping {
    /// The payload key among `keys` that serves `property`, by the rules in order: the key equal to
    /// the property, a key that converts to it by the seed's rules, one that converts by
    /// Foundation's, `id` for `uid`. The one key rule of JSON models, XML models and store imports;
    /// `propertyName` and `foundationName` let a decoder remember conversions.
    package static func matchingKey(
        for property: String, among keys: some Sequence<String>,
        propertyName: (String) -> String = propertyName(for:), foundationName: (String) -> String = foundationPropertyName(for:)
    ) -> String? {
        var seed: String?
        var foundation: String?
        var hasID = false
        for key in keys {
            if key == property { return key }
            if seed == nil, propertyName(key) == property { seed = key }
            if foundation == nil, foundationName(key) == property { foundation = key }
            if key == "id" { hasID = true }
        }
        return seed ?? foundation ?? (property == "uid" && hasID ? "id" : nil)
    }

    /// The property name a payload key converts to.
    package static func propertyName(for key: String) -> String {
        let parts = key.split(separator: "_", omittingEmptySubsequences: true)
        guard !parts.isEmpty else { return key }
        var name = ""
        for (index, part) in parts.enumerated() {
            if index == 0 {
                name += part.prefix(1).lowercased() + part.dropFirst()
            } else if part.lowercased() == "id" {
                name += "ID"
            } else {
                name += part.prefix(1).uppercased() + part.dropFirst()
            }
        }
        if name.count > 2, name.hasSuffix("Id") { name = String(name.dropLast(2)) + "ID" }
        return name
    }

    /// The property name Foundation's `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` gives
    /// a payload key: underscores at either end are kept, the first word is lowercased and each
    /// further word capitalised (`pizza_id` → `pizzaId`, `USER_NAME` → `userName`); a key without
    /// inner underscores is left as it is.
    package static func foundationPropertyName(for key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }),
              let last = key.lastIndex(where: { $0 != "_" })
        else { return key }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        var name = String(key[..<first])
        name += words[0].lowercased()
        for word in words.dropFirst() {
            name += word.prefix(1).uppercased() + word.dropFirst().lowercased()
        }
        name += key[key.index(after: last)...]
        return name
    }

    /// The payload key to write for a property name (the reverse rules): `userName` → `user_name`,
    /// `pizzaID` → `pizza_id`, `uid` → `id`.
    package static func payloadKey(for property: String) -> String {
        if property == "uid" { return "id" }
        var key = ""
        let characters = Array(property)
        for (index, character) in characters.enumerated() {
            if character.isUppercase {
                let previousIsUpper = index > 0 && characters[index - 1].isUppercase
                if index > 0 && !previousIsUpper { key += "_" }
                key += character.lowercased()
            } else {
                key += String(character)
            }
        }
        return key
    }
}
