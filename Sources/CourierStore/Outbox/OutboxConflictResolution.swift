import Courier
import Foundation

/// What the outbox does with a write the server refused with 412 (an ``OutboxConflict``). A
/// value with static members, so later releases can add resolutions.
public struct OutboxConflictResolution: Sendable {
    enum Action: Sendable {
        case deadLetter
        case discard
        case replace(@Sendable (Outbox) throws(CourierError) -> StoredWrite.Wire)
    }

    let action: Action

    /// Keep it as a dead letter, with the server's answer (what happens without a resolver);
    /// its optimistic changes are undone.
    public static let deadLetter = OutboxConflictResolution(action: .deadLetter)

    /// Drop it: the server's version stands. Its optimistic changes are undone; it is not a dead letter.
    public static let discard = OutboxConflictResolution(action: .discard)

    /// Send `request` in its place, first in its scope, with a new `Idempotency-Key` (it is
    /// another write): typically the app's change made again on the current version, with the
    /// new `If-Match` (``OutboxConflict/currentETag``). Its optimistic changes stay.
    public static func replace<Value>(with request: Request<Value>) -> OutboxConflictResolution {
        OutboxConflictResolution(action: .replace { outbox throws(CourierError) in try outbox.wire(for: request) })
    }
}
