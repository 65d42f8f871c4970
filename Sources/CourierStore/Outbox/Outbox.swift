import Courier
import Foundation
import GRDB

/// Writes made without a network, kept in a ``CourierStore`` until the server has them: each one
/// persisted in one transaction when enqueued, sent later through an ``Courier/APIClient`` with
/// the same `Idempotency-Key` on every attempt (so a write whose answer was lost is applied once),
/// first in first out within its scope, and never dropped: a write the server refuses moves to the
/// dead letters with what the server said.
///
/// ```swift
/// let outbox = try Outbox(store: store, client: client)
/// try await outbox.enqueue(Request<Data>(.patch, "images/7", body: ["title": "Dusk"]), scope: "image-7")
/// for try await entries in outbox.observe() { showPending(entries.count) }
/// let flush = try await outbox.flush()          // when the network is back (or outbox.start())
/// for letter in try await outbox.deadLetters() { show(letter.message, letter.validationErrors) }
/// ```
///
/// The entries live in the store's file (tables `courier_outbox` and `courier_dead_letter`), so
/// they outlive the app; an entry found in flight when the outbox opens (the app was killed while
/// sending it) is sent again, with its key. ``CourierStore/erase()``, and so a logout that erases
/// the user's store, erases them too.
///
/// What an attempt's failure does:
/// - no answer (offline, cannot connect, timed out, connection lost), or 401 (the write waits for
///   the next sign-in), 408, 409, 429 or a 5xx:
///   the entry waits (the server's `Retry-After`, else a doubling backoff from ``baseDelay`` up to
///   ``maximumDelay``, with the jitter of every retry in Courier: between half the bound and all
///   of it) and its scope waits with it, so the order holds;
/// - 412 (made with `If-Match` on a version that has changed): the conflict resolver decides
///   (``OutboxConflictResolution``); without one, it is a dead letter;
/// - any other 4xx (a 422 with its parsed field errors included), or a write that can no longer be
///   sent as stored: the entry becomes a ``DeadLetter`` (its optimistic ``StoreChange``s undone),
///   and the next entry of its scope goes on.
///
/// An entry can wait for an entry of another scope (`after:`), carry optimistic changes to the
/// store (`applying:`), and keep a streamed body (a file upload) as a copy beside the store file.
///
/// Replays go through the client like any request: its current authentication headers (never
/// stored in the outbox), hooks, metrics and tracing; they do not show error alerts, and the
/// client's retry policy is not applied on top of the outbox's.
public final class Outbox: Sendable {
    /// The store the entries live in.
    public let store: CourierStore
    /// The client that sends them.
    public let client: APIClient
    /// The wait after an entry's first failed attempt; it doubles with each further failure.
    public let baseDelay: Duration
    /// The longest wait between attempts.
    public let maximumDelay: Duration
    /// What to do with a write the server refused with 412 (it was made on a version that has
    /// changed since); `nil`: it becomes a dead letter.
    public let conflictResolver: (@Sendable (OutboxConflict) async -> OutboxConflictResolution)?
    /// The loop of ``start()``.
    let runner = Locked(Runner())
    /// Streamed bodies, kept as files beside the store.
    let bodies: OutboxBodies
    /// An outbox in `store`, sending through `client`: creates its tables if needed, and marks
    /// entries left in flight to be sent again. Make one per store.
    /// - Parameters:
    ///   - baseDelay: the wait after an entry's first failed attempt; it doubles with each further one.
    ///   - maximumDelay: the longest wait between attempts.
    ///   - resolvingConflicts: asked what to do with a write the server refused with 412
    ///     Precondition Failed (made with an `If-Match` on a version that has changed since):
    ///     keep it as a dead letter, discard it, or send a replacement made on the current version.
    ///     Without it, such a write becomes a dead letter.
    /// - Throws: ``CourierError/Kind/store`` when the tables cannot be made, and
    ///   ``CourierError/Kind/invalidRequest`` for a negative delay.
    public init(
        store: CourierStore, client: APIClient, baseDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300),
        resolvingConflicts conflictResolver: (@Sendable (OutboxConflict) async -> OutboxConflictResolution)? = nil
    ) throws(CourierError) {
        for (name, delay) in [("baseDelay", baseDelay), ("maximumDelay", maximumDelay)] where delay < .zero {
            throw CourierError(.invalidRequest, "The outbox's \(name) is \(delay); a delay must be 0 or more.")
        }
        self.store = store
        self.client = client
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.conflictResolver = conflictResolver
        bodies = OutboxBodies(store: store)
        try prepareTables()
    }

    /// Persists `request` as it would be sent now (URL, headers but the client's authentication
    /// headers, body), with a new idempotency key, and makes its optimistic `changes` to the
    /// store, in one transaction; with ``OutboxPolicy/sendAtOnce``, then sends its scope.
    /// Returns the entry and what became of it.
    /// - Parameters:
    ///   - scope: the order it keeps: entries of one scope are sent one after another.
    ///   - dependency: an entry (of any scope) the server must have taken first; when that one
    ///     becomes a dead letter, so does this one.
    ///   - changes: made in the store at once, and undone if the write becomes a dead letter.
    /// - Throws: ``CourierError/Kind/invalidRequest`` for a GET or HEAD (the outbox keeps writes)
    ///   or a request that cannot be sent as described, ``CourierError/Kind/store`` when the entry
    ///   cannot be written (a full disk, a read-only file): the write is then not kept and no
    ///   change is made, and the error says so.
    @discardableResult
    public func enqueue<Value>(
        _ request: Request<Value>, scope: String = "", after dependency: OutboxEntry? = nil, applying changes: [StoreChange] = [],
        policy: OutboxPolicy = .queue
    ) async throws(CourierError) -> OutboxReceipt {
        let wire = try wire(for: request)
        return try await keep(StoredWrite(scope: scope, wire: wire, dependsOn: dependency?.id), body: wire.stream, applying: changes, policy: policy)
    }

    /// Keeps `request` as a write whose body is `file`, sent as a resumable upload in
    /// `uploadProtocol` (``Courier/APIClient/upload(_:from:resuming:using:chunkSize:)``): the file
    /// is copied beside the store when the entry is kept, and each attempt resumes the upload from
    /// what the server holds instead of sending the file again. `request` creates the upload (a
    /// `POST` with no body to the server's upload endpoint). The rest is as
    /// ``enqueue(_:scope:after:applying:policy:)``: the scope's order, the dependency, changes
    /// undone if the write becomes a dead letter (whose upload is then discarded), and the
    /// idempotency key, which goes with the creation: a creation sent again after a crash gets
    /// the same upload from a server that honours the key, and the upload then ends at once.
    /// - Throws: ``CourierError/Kind/invalidRequest`` for a request other than a `POST` without a
    ///   body, a file that is not readable, or a store in memory (which keeps no files), with
    ///   nothing kept; ``CourierError/Kind/store`` as for `enqueue`.
    @discardableResult
    public func enqueue<Value>(
        upload request: Request<Value>, from file: URL, using uploadProtocol: ResumableUploadProtocol = .tus, scope: String = "",
        after dependency: OutboxEntry? = nil, applying changes: [StoreChange] = [], policy: OutboxPolicy = .queue
    ) async throws(CourierError) -> OutboxReceipt {
        guard bodies.directory != nil else {
            throw CourierError(.invalidRequest, "The outbox of a store in memory keeps no files, so it cannot keep the upload of \(file.path); open the store from a file.")
        }
        var wire = try wire(for: request)
        guard wire.method == .post, wire.body?.isEmpty ?? true, wire.stream == nil else {
            throw CourierError(
                .invalidRequest, "A resumable upload is created with a POST without a body (the file is the body); \(request.method) \(request.path) was not kept.")
        }
        guard let size = APIClient.uploadableLength(of: file) else {
            throw CourierError(.invalidRequest, "The file \(file.path) to upload is not a readable file; the upload was not kept.")
        }
        wire.stream = StreamedBody(segments: [.file(file, length: size)], contentType: "application/octet-stream")
        var write = StoredWrite(scope: scope, wire: wire, dependsOn: dependency?.id)
        write.uploadProtocol = uploadProtocol.description
        return try await keep(write, body: wire.stream, applying: changes, policy: policy)
    }

    /// Inserts `write` (and its body and changes) and, with `policy`, sends its scope at once.
    private func keep(_ write: StoredWrite, body: StreamedBody?, applying changes: [StoreChange], policy: OutboxPolicy) async throws(CourierError) -> OutboxReceipt {
        let scope = write.scope
        let entry = try await insert(write, body: body, applying: changes)
        guard policy.sendsAtOnce else {
            wake()
            return OutboxReceipt(entry: entry, outcome: .queued)
        }
        _ = try await flush(scope: scope, now: Date())
        return OutboxReceipt(entry: entry, outcome: try await receiptOutcome(of: entry))
    }

    /// `request` as the outbox keeps it: as it would be sent now, without the client's
    /// authentication headers (every attempt takes them fresh from the client).
    func wire<Value>(for request: Request<Value>) throws(CourierError) -> StoredWrite.Wire {
        guard !request.method.encodesParametersInURL else {
            throw CourierError(.invalidRequest, "The outbox keeps writes; \(request.method) \(request.path) is a read. Send it directly.")
        }
        let wire = try client.transportRequest(for: request)
        var headers = wire.headers
        let contentType = headers["Content-Type"]
        for name in ["Content-Type", "Content-Length"] + client.configuration.authenticationHeaders { headers.remove(name) }
        return StoredWrite.Wire(method: wire.method, url: wire.url, headers: headers, body: wire.body, stream: wire.bodyStream, contentType: contentType)
    }

    /// The entries of the outbox, now and after every change (enqueues, attempts, sends).
    public func observe() -> StoreObservation<[OutboxEntry]> {
        StoreObservation(path: store.path) { [store] in
            ValueObservation.tracking { db in try Self.fetchEntries(db) }.removeDuplicates().values(in: store.database)
        }
    }

    /// The dead letters, now and after every change.
    public func observeDeadLetters() -> StoreObservation<[DeadLetter]> {
        StoreObservation(path: store.path) { [store] in
            ValueObservation.tracking { db in try Self.fetchDeadLetters(db) }.removeDuplicates().values(in: store.database)
        }
    }
}
