/// The seed's key rules (seed 002): how a payload key is read for a model property.
///
/// - `user_name` → `userName` (snake case to camel case);
/// - `OrderedPizzas` → `orderedPizzas` (a leading capital is lowered);
/// - a last word `id` becomes `ID`: `pizza_id` → `pizzaID` (and `pizzaId` → `pizzaID`);
/// - `id` is read for a property named `uid` when the payload has no `uid`;
/// - a payload key equal to the property name always wins over a converted one.
public enum KeyMapping {
    /// The property name a payload key converts to.
    public static func propertyName(for key: String) -> String {
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

    /// The payload key to write for a property name (the reverse rules): `userName` → `user_name`,
    /// `pizzaID` → `pizza_id`, `uid` → `id`.
    public static func payloadKey(for property: String) -> String {
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
