import Courier
import Foundation
import GRDB

// How an entry moves: claimed for an attempt, removed once sent, postponed, buried as a dead
// letter, discarded or replaced after a conflict. Each move is one transaction; a body file goes
// only after the row that named it.
extension Outbox {
    /// What ``claim(scope:now:removing:)`` found at the head of a scope.
    struct Claim {
        /// The entry to send now, marked in flight; `nil` when there is none.
        var write: StoredWrite?
        /// The head waits for an entry it depends on that is still in the outbox.
        var blocked = false
        /// Entries that became dead letters because an entry they depend on is one.
        var buried: [StoredWrite] = []
        /// Rows that could not be read as writes, moved to the dead letters.
        var damaged = 0
    }

    /// Removes the entry numbered `sent` (the server took it), then takes the first entry of
    /// `scope` for an attempt (marks it in flight, counts the attempt), in one transaction. No
    /// write when the scope is empty, its first entry is in flight elsewhere, not due before
    /// `now`, or waits for an entry it depends on; a first entry whose dependency is a dead
    /// letter becomes one too, and the next is looked at.
    func claim(scope: String, now: Date, removing sent: StoredWrite?) async throws(CourierError) -> Claim {
        do {
            let claim = try await store.database.write { db -> Claim in
                if let sent { try Self.delete(sent.id, in: db) }
                var claim = Claim()
                while let row = try Row.fetchOne(db, sql: "SELECT * FROM courier_outbox WHERE scope = ? ORDER BY id LIMIT 1", arguments: [scope]) {
                    guard var write = StoredWrite(row: row) else {
                        // A row that does not hold a write (a damaged file) must not hold its scope.
                        try Self.buryDamaged(row, in: db)
                        claim.damaged += 1
                        continue
                    }
                    guard write.state == .pending else { return claim }
                    if let next = write.nextAttempt, next > now { return claim }
                    if let dependency = write.dependsOn {
                        if try Bool.fetchOne(db, sql: "SELECT 1 FROM courier_outbox WHERE id = ?", arguments: [dependency]) == true {
                            claim.blocked = true
                            return claim
                        }
                        if let refused = try Row.fetchOne(db, sql: "SELECT method, url FROM courier_dead_letter WHERE id = ?", arguments: [dependency]) {
                            let what = "\(String.fromDatabaseValue(refused["method"] ?? .null) ?? "") \(String.fromDatabaseValue(refused["url"] ?? .null) ?? "")"
                            try Self.bury(
                                write, statusCode: nil, body: Data(), validationErrors: nil,
                                message: "It depended on write #\(dependency) (\(what)), which the server refused; it was not sent.", in: db)
                            claim.buried.append(write)
                            continue
                        }
                    }
                    write.state = .inFlight
                    write.attempts += 1
                    try db.execute(
                        sql: "UPDATE courier_outbox SET state = ?, attempts = ? WHERE id = ?", arguments: [write.state.name, write.attempts, write.id])
                    claim.write = write
                    return claim
                }
                return claim
            }
            // A sent entry's body file goes once its row is gone, never before.
            bodies.remove([sent?.bodyFile])
            return claim
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }

    /// Removes an entry the server took.
    func remove(_ write: StoredWrite) async throws(CourierError) {
        do {
            try await store.database.write { db in try Self.delete(write.id, in: db) }
            bodies.remove([write.bodyFile])
        } catch {
            throw CourierError.store(error, path: store.path, doing: "remove a sent write from its outbox")
        }
    }

    /// Puts an entry back to wait until `next`, with why; an attempt the server did not answer
    /// (`unanswered`) is due again as soon as the server answers another request.
    func postpone(_ write: StoredWrite, until next: Date, because error: CourierError) async throws(CourierError) {
        do {
            try await store.database.write { db in
                try db.execute(
                    sql: "UPDATE courier_outbox SET state = ?, nextAttempt = ?, lastError = ?, unanswered = ? WHERE id = ?",
                    arguments: [OutboxState.pending.name, next, error.message, error.statusCode == nil, write.id])
            }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "postpone a write in its outbox")
        }
    }

    /// Moves an entry to the dead letters with the server's refusal and undoes its optimistic
    /// changes, in one transaction.
    func bury(_ write: StoredWrite, because error: CourierError) async throws(CourierError) {
        do {
            try await store.database.write { db in
                try Self.bury(
                    write, statusCode: error.statusCode, body: error.body ?? Data(), validationErrors: error.validationErrors,
                    message: error.message, in: db)
            }
            bodies.remove([write.bodyFile])
        } catch {
            throw CourierError.store(error, path: store.path, doing: "move a refused write to its dead letters")
        }
    }

    /// Drops an entry the app gave up (a discarded conflict) and undoes its optimistic changes.
    func discard(_ write: StoredWrite) async throws(CourierError) {
        do {
            try await store.database.write { db in
                try Self.rollBack(write.undo, in: db)
                try Self.delete(write.id, in: db, leaving: .discarded)
            }
            bodies.remove([write.bodyFile])
        } catch {
            throw CourierError.store(error, path: store.path, doing: "drop a discarded write from its outbox")
        }
    }

    /// Puts `wire` in the place of an entry, with a new idempotency key and no attempts yet; its
    /// optimistic changes stay.
    func replace(_ write: StoredWrite, with wire: StoredWrite.Wire) async throws(CourierError) {
        var replacement = StoredWrite(scope: write.scope, wire: wire, dependsOn: nil)
        try keepBody(wire.stream, of: &replacement)
        defer { replacement.bodyFile.map(bodies.committed) }
        do {
            try await store.database.write { [replacement] db in
                try db.execute(
                    sql: """
                        UPDATE courier_outbox SET method = ?, url = ?, headers = ?, body = ?, contentType = ?, idempotencyKey = ?, state = ?,
                        attempts = 0, nextAttempt = NULL, lastError = ?, unanswered = 0, bodyFile = ? WHERE id = ?
                        """,
                    arguments: [
                        replacement.method.rawValue, replacement.url.absoluteString, replacement.encodedHeaders, replacement.body,
                        replacement.contentType, replacement.idempotencyKey, OutboxState.pending.name,
                        "Replaced after a conflict (412) by the app's resolver.", replacement.bodyFile, write.id,
                    ])
            }
            bodies.remove([write.bodyFile])
        } catch {
            bodies.remove([replacement.bodyFile])
            throw CourierError.store(error, path: store.path, doing: "replace a conflicting write in its outbox")
        }
    }

    /// Moves an entry to the dead letters, undoing its optimistic changes.
    static func bury(
        _ write: StoredWrite, statusCode: Int?, body: Data, validationErrors: ValidationErrors?, message: String, in db: Database
    ) throws {
        let fields = validationErrors.flatMap { try? JSONEncoder().encode($0.fields) }
        try db.execute(
            sql: """
                INSERT INTO courier_dead_letter (id, scope, method, url, idempotencyKey, statusCode, body, message, validationErrors, enqueuedAt, failedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                write.id, write.scope, write.method.rawValue, write.url.absoluteString, write.idempotencyKey, statusCode,
                body, message, fields, write.enqueuedAt, Date(),
            ])
        try rollBack(write.undo, in: db)
        try delete(write.id, in: db, leaving: .deadLettered)
    }

    /// Moves a row that does not hold a write (a missing or mistyped column) to the dead letters
    /// with what can be read of it, so the app sees it and its scope goes on.
    static func buryDamaged(_ row: Row, in db: Database) throws {
        let id: DatabaseValue = row["id"] ?? .null
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO courier_dead_letter (id, scope, method, url, idempotencyKey, statusCode, body, message, validationErrors, enqueuedAt, failedAt)
                SELECT id, CAST(scope AS TEXT), COALESCE(CAST(method AS TEXT), '?'), COALESCE(CAST(url AS TEXT), ''),
                COALESCE(CAST(idempotencyKey AS TEXT), ''), NULL, x'', ?, NULL, ?, ? FROM courier_outbox WHERE id = ?
                """,
            arguments: [
                "This entry could not be read from the store file (a damaged or hand-edited row); it was not sent.", Date(), Date(), id,
            ])
        try delete(id, in: db, leaving: .deadLettered)
    }

    /// Removes the entry numbered `id`: the one statement every way out of the outbox ends with.
    /// `outcome`, when the entry leaves refused, is kept for its receipt (see ``note(_:of:in:)``).
    static func delete(_ id: some DatabaseValueConvertible, in db: Database, leaving outcome: OutboxOutcome? = nil) throws {
        try db.execute(sql: "DELETE FROM courier_outbox WHERE id = ?", arguments: [id])
        if let outcome { try note(outcome, of: id, in: db) }
    }

    /// How long the outcome of an entry that left refused is kept when no receipt reads it (an
    /// entry queued without waiting for its receipt).
    static let outcomeLifetime: TimeInterval = 7 * 24 * 3_600

    /// Keeps how entry `id` left the outbox refused, in the transaction that moved it, so its
    /// receipt tells it even after the app removed the dead letter, and even when another outbox
    /// on the same file made the move; outcomes older than ``outcomeLifetime`` go meanwhile.
    /// A sent entry keeps nothing: no outcome reads as sent. A damaged row without a number
    /// keeps nothing either (no receipt can ask for it).
    static func note(_ outcome: OutboxOutcome, of id: some DatabaseValueConvertible, in db: Database) throws {
        guard !id.databaseValue.isNull else { return }
        let now = Date()
        try db.execute(sql: "DELETE FROM courier_outbox_outcome WHERE endedAt < ?", arguments: [now.addingTimeInterval(-outcomeLifetime)])
        try db.execute(
            sql: "INSERT OR REPLACE INTO courier_outbox_outcome (id, outcome, endedAt) VALUES (?, ?, ?)", arguments: [id, outcome.name, now])
    }
}
