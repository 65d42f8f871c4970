/// Where an outbox entry stands. A value with static members, so later releases can add states
/// without breaking a `switch`.
public struct OutboxState: Hashable, Sendable, CustomStringConvertible {
    /// The stored name (`pending`, `inFlight`).
    public let name: String

    /// Waiting to be sent (again): queued, or failed in a way worth retrying.
    public static let pending = OutboxState(name: "pending")
    /// Being sent now. An entry found in flight when the store opens was cut off (the app was
    /// killed): it is sent again, with the same idempotency key.
    public static let inFlight = OutboxState(name: "inFlight")

    /// The name (``name``).
    public var description: String { name }
}
