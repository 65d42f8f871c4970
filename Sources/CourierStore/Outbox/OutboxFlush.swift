/// What one ``Outbox/flush()`` did.
public struct OutboxFlush: Sendable, Hashable, CustomStringConvertible {
    /// Entries the server took (they left the outbox).
    public var sent = 0
    /// Entries whose attempt failed in a way worth retrying; they wait for a later flush.
    public var deferred = 0
    /// Entries the server refused; they moved to the dead letters.
    public var deadLettered = 0
    /// Entries whose conflict (412) the app's resolver discarded.
    public var discarded = 0
    /// Entries still in the outbox after the flush.
    public var remaining = 0

    /// A flush that did nothing yet.
    public init() {}

    /// Adds the counts of `part` (not ``remaining``).
    mutating func add(_ part: OutboxFlush) {
        sent += part.sent
        deferred += part.deferred
        deadLettered += part.deadLettered
        discarded += part.discarded
    }

    /// `sent=… deferred=… deadLettered=… discarded=… remaining=…`.
    public var description: String {
        "sent=\(sent) deferred=\(deferred) deadLettered=\(deadLettered) discarded=\(discarded) remaining=\(remaining)"
    }
}
