import Courier
import Foundation

/// A write kept in an ``Outbox`` until the server has it.
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    /// The entry's number, increasing in the order entries were enqueued.
    public let id: Int64
    /// The order it keeps: entries of one scope are sent one after another, first in first out;
    /// scopes do not wait for each other.
    public let scope: String
    /// The method.
    public let method: HTTPMethod
    /// The URL, as it is sent.
    public let url: URL
    /// The `Idempotency-Key` every attempt sends, so the server applies the write once.
    public let idempotencyKey: String
    /// Where it stands.
    public let state: OutboxState
    /// Attempts made so far.
    public let attempts: Int
    /// The earliest time of the next attempt (a backoff, or the server's `Retry-After`); `nil` for at once.
    public let nextAttempt: Date?
    /// Why the last attempt failed, in words; `nil` before any failure.
    public let lastError: String?
    /// When it was enqueued.
    public let enqueuedAt: Date
    /// The entry (of any scope) the server must have taken before this one is sent; `nil` for none.
    /// When that one becomes a dead letter, so does this one.
    public let dependsOn: Int64?
}
