import Courier
import Foundation

/// A write the server refused (a 4xx other than those worth retrying): moved out of the outbox
/// with what the server said, never dropped, until the app removes it
/// (``Outbox/removeDeadLetter(_:)``).
public struct DeadLetter: Sendable, Hashable, Identifiable {
    /// The entry's number (``OutboxEntry/id``).
    public let id: Int64
    /// The entry's scope.
    public let scope: String
    /// The method.
    public let method: HTTPMethod
    /// The URL.
    public let url: URL
    /// The key the attempts sent.
    public let idempotencyKey: String
    /// The status of the refusal; `nil` when the write failed before an answer (it could not be sent as stored).
    public let statusCode: Int?
    /// The body of the refusal.
    public let body: Data
    /// What went wrong, in words.
    public let message: String
    /// The field errors of a refused write (a 422's, in the app's naming), when the body had a known shape.
    public let validationErrors: ValidationErrors?
    /// When it was enqueued.
    public let enqueuedAt: Date
    /// When it was refused.
    public let failedAt: Date
}
