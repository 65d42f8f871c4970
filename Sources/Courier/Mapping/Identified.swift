/// Models equal by identity (seed 002: `BaseModel` implements `isEqual:` with `uid`): two values
/// with the same ``uid`` are equal and hash alike, whatever their other properties, so
/// `firstIndex(of:)`, `contains` and sets find a model after it changed.
///
/// ```swift
/// struct User: Codable, Identified { var uid: Int; var userName: String }
/// ```
///
/// Models are value types, so a copy is simply another `let` (the seed's `NSCopying`).
public protocol Identified: Hashable {
    /// The type of the identifier.
    associatedtype UID: Hashable
    /// The identifier (the payload's `id`, read for `uid` by ``ModelDecoder``).
    var uid: UID { get }
}

extension Identified {
    /// Equal when the identifiers are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.uid == rhs.uid }

    /// Hashes the identifier only.
    public func hash(into hasher: inout Hasher) { hasher.combine(uid) }
}
