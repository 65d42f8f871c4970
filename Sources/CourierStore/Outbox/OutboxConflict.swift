import Courier
import Foundation

/// A write the server refused with 412 Precondition Failed: it was made on a version of the
/// resource (its `If-Match`) that has changed since. The outbox asks its conflict resolver
/// (``Outbox/init(store:client:baseDelay:maximumDelay:resolvingConflicts:)``) what to do.
public struct OutboxConflict: Sendable {
    /// The entry, as kept.
    public let entry: OutboxEntry
    /// The server's answer: status 412, its body and headers.
    public let error: CourierError

    /// The current version's tag, when the server sent it (`ETag` of the 412): the `If-Match` of
    /// a write made on the current version.
    public var currentETag: String? { error.headers?["ETag"] }
}
