/// When ``Outbox/enqueue(_:scope:after:applying:policy:)`` sends. A value with static members, so later
/// releases can add policies.
public struct OutboxPolicy: Hashable, Sendable, CustomStringConvertible {
    let sendsAtOnce: Bool

    /// Keep the write; ``Outbox/flush()`` sends it later.
    public static let queue = OutboxPolicy(sendsAtOnce: false)
    /// Keep the write, then send its scope at once (entries ahead of it first): it stays queued
    /// only when the attempt fails in a way worth retrying.
    public static let sendAtOnce = OutboxPolicy(sendsAtOnce: true)

    /// `queue` or `sendAtOnce`.
    public var description: String { sendsAtOnce ? "sendAtOnce" : "queue" }
}

/// What became of a write ``Outbox/enqueue(_:scope:after:applying:policy:)`` kept. A value with static members.
public struct OutboxOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The stored name.
    public let name: String

    /// The server has it.
    public static let sent = OutboxOutcome(name: "sent")
    /// It waits in the outbox (not sent yet, or its attempt failed in a way worth retrying).
    public static let queued = OutboxOutcome(name: "queued")
    /// The server refused it: it is a dead letter.
    public static let deadLettered = OutboxOutcome(name: "deadLettered")
    /// The server refused it with 412 and the conflict resolver discarded it.
    public static let discarded = OutboxOutcome(name: "discarded")

    /// The name (``name``).
    public var description: String { name }
}

/// A write the outbox kept, and what became of it by the time ``Outbox/enqueue(_:scope:after:applying:policy:)`` returned.
public struct OutboxReceipt: Hashable, Sendable {
    /// The entry as it was kept.
    public let entry: OutboxEntry
    /// What became of it.
    public let outcome: OutboxOutcome
}
