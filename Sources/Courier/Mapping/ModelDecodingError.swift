/// Why a model could not be decoded: where (the full key path, such as
/// `orderedPizzas[1].pizzaID`) and what was found.
public struct ModelDecodingError: Error, Sendable, CustomStringConvertible {
    /// The key path of the value that failed (`""` for the top level).
    public var keyPath: String
    /// What was expected and what was found.
    public var reason: String

    /// `keyPath: reason`.
    public var description: String { keyPath.isEmpty ? reason : "\(keyPath): \(reason)" }
}
