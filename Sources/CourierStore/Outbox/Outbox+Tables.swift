import Courier
import Foundation
import GRDB

// The outbox's two tables in the store's file, and every statement on them.
extension Outbox {
    /// Creates the tables if needed and marks entries left in flight as pending.
    func prepareTables() throws(CourierError) {
        do {
            try store.database.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS courier_outbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
                        headers BLOB NOT NULL, body BLOB, contentType TEXT, idempotencyKey TEXT NOT NULL UNIQUE,
                        state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, nextAttempt DATETIME, lastError TEXT,
                        enqueuedAt DATETIME NOT NULL, dependsOn INTEGER, undo BLOB, unanswered BOOLEAN NOT NULL DEFAULT 0);
                    CREATE INDEX IF NOT EXISTS courier_outbox_scope ON courier_outbox (scope, id);
                    CREATE TABLE IF NOT EXISTS courier_dead_letter (
                        id INTEGER PRIMARY KEY, scope TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
                        idempotencyKey TEXT NOT NULL, statusCode INTEGER, body BLOB NOT NULL, message TEXT NOT NULL,
                        validationErrors BLOB, enqueuedAt DATETIME NOT NULL, failedAt DATETIME NOT NULL);
                    """)
                // Columns later releases added, for a file an earlier one made.
                let columns = Set(try db.columns(in: "courier_outbox").map(\.name))
                for (name, type) in [("dependsOn", "INTEGER"), ("undo", "BLOB"), ("unanswered", "BOOLEAN NOT NULL DEFAULT 0")] where !columns.contains(name) {
                    try db.execute(sql: "ALTER TABLE courier_outbox ADD COLUMN \(name) \(type)")
                }
                try db.execute(sql: "UPDATE courier_outbox SET state = ? WHERE state = ?", arguments: [OutboxState.pending.name, OutboxState.inFlight.name])
            }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "prepare its outbox")
        }
    }

    /// Writes a new entry and makes its optimistic changes, in one transaction; returns it with its number.
    func insert(_ write: StoredWrite, applying changes: [StoreChange]) async throws(CourierError) -> OutboxEntry {
        do {
            let written = try await store.database.write { [store] db in
                var written = write
                written.undo = try Self.apply(changes, store: store, in: db)
                try db.execute(
                    sql: """
                        INSERT INTO courier_outbox (scope, method, url, headers, body, contentType, idempotencyKey, state, enqueuedAt, dependsOn, undo)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        written.scope, written.method.rawValue, written.url.absoluteString, written.encodedHeaders, written.body, written.contentType,
                        written.idempotencyKey, written.state.name, written.enqueuedAt, written.dependsOn, written.undo,
                    ])
                written.id = db.lastInsertedRowID
                return written
            }
            return written.entry
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError.store(error, path: store.path, doing: "keep the write \(write.method) \(write.url.path) in its outbox (it was not kept)")
        }
    }

    /// Every entry, in order.
    public func entries() async throws(CourierError) -> [OutboxEntry] {
        do {
            return try await store.database.read { db in try Self.fetchEntries(db) }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }

    /// Every dead letter, in the order the writes were enqueued.
    public func deadLetters() async throws(CourierError) -> [DeadLetter] {
        do {
            return try await store.database.read { db in try Self.fetchDeadLetters(db) }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its dead letters")
        }
    }

    static func fetchEntries(_ db: Database) throws -> [OutboxEntry] {
        try Row.fetchAll(db, sql: "SELECT * FROM courier_outbox ORDER BY id").compactMap { StoredWrite(row: $0)?.entry }
    }

    static func fetchDeadLetters(_ db: Database) throws -> [DeadLetter] {
        try Row.fetchAll(db, sql: "SELECT * FROM courier_dead_letter ORDER BY id").compactMap { row -> DeadLetter? in
            // A damaged row gives no dead letter, never a crash.
            guard let id = Int64.fromDatabaseValue(row["id"]), let scope = String.fromDatabaseValue(row["scope"]),
                  let method = String.fromDatabaseValue(row["method"]), let url = String.fromDatabaseValue(row["url"]).flatMap(URL.init(string:)),
                  let key = String.fromDatabaseValue(row["idempotencyKey"]), let message = String.fromDatabaseValue(row["message"]),
                  let enqueuedAt = Date.fromDatabaseValue(row["enqueuedAt"]), let failedAt = Date.fromDatabaseValue(row["failedAt"])
            else { return nil }
            let fields = Data.fromDatabaseValue(row["validationErrors"]).flatMap { try? JSONDecoder().decode([String: [String]].self, from: $0) }
            return DeadLetter(
                id: id, scope: scope, method: HTTPMethod(rawValue: method), url: url, idempotencyKey: key,
                statusCode: Int.fromDatabaseValue(row["statusCode"]), body: Data.fromDatabaseValue(row["body"]) ?? Data(), message: message,
                validationErrors: fields.map { ValidationErrors(fields: $0) }, enqueuedAt: enqueuedAt, failedAt: failedAt)
        }
    }

    /// What became of `entry`: still queued, a dead letter, or sent (in neither table).
    func outcome(of entry: OutboxEntry) async throws(CourierError) -> OutboxOutcome {
        do {
            return try await store.database.read { db in
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM courier_outbox WHERE id = ?", arguments: [entry.id]) == true { return .queued }
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM courier_dead_letter WHERE id = ?", arguments: [entry.id]) == true { return .deadLettered }
                return .sent
            }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }

    /// Removes a dead letter (the app has shown it, or made the write again).
    public func removeDeadLetter(_ id: Int64) async throws(CourierError) {
        do {
            try await store.database.write { db in try db.execute(sql: "DELETE FROM courier_dead_letter WHERE id = ?", arguments: [id]) }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "remove a dead letter")
        }
    }

    /// The scopes with entries.
    func scopes() async throws(CourierError) -> [String] {
        do {
            return try await store.database.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT scope FROM courier_outbox ORDER BY scope") }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }

    /// What ``claim(scope:now:removing:)`` found at the head of a scope.
    struct Claim {
        /// The entry to send now, marked in flight; `nil` when there is none.
        var write: StoredWrite?
        /// The head waits for an entry it depends on that is still in the outbox.
        var blocked = false
        /// Entries that became dead letters because an entry they depend on is one.
        var buried = 0
    }

    /// Removes the entry numbered `sent` (the server took it), then takes the first entry of
    /// `scope` for an attempt (marks it in flight, counts the attempt), in one transaction. No
    /// write when the scope is empty, its first entry is in flight elsewhere, not due before
    /// `now`, or waits for an entry it depends on; a first entry whose dependency is a dead
    /// letter becomes one too, and the next is looked at.
    func claim(scope: String, now: Date, removing sent: Int64?) async throws(CourierError) -> Claim {
        do {
            return try await store.database.write { db -> Claim in
                if let sent { try Self.delete(sent, in: db) }
                var claim = Claim()
                while let row = try Row.fetchOne(db, sql: "SELECT * FROM courier_outbox WHERE scope = ? ORDER BY id LIMIT 1", arguments: [scope]),
                      var write = StoredWrite(row: row), write.state == .pending {
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
                            claim.buried += 1
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
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }

    /// Removes the entry numbered `id` (the server took it).
    func remove(_ id: Int64) async throws(CourierError) {
        do {
            try await store.database.write { db in try Self.delete(id, in: db) }
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
        } catch {
            throw CourierError.store(error, path: store.path, doing: "move a refused write to its dead letters")
        }
    }

    /// Drops an entry the app gave up (a discarded conflict) and undoes its optimistic changes.
    func discard(_ write: StoredWrite) async throws(CourierError) {
        do {
            try await store.database.write { db in
                try Self.rollBack(write.undo, in: db)
                try Self.delete(write.id, in: db)
            }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "drop a discarded write from its outbox")
        }
    }

    /// Puts `wire` in the place of an entry, with a new idempotency key and no attempts yet; its
    /// optimistic changes stay.
    func replace(_ write: StoredWrite, with wire: StoredWrite.Wire) async throws(CourierError) {
        let replacement = StoredWrite(scope: write.scope, wire: wire, dependsOn: nil)
        do {
            try await store.database.write { db in
                try db.execute(
                    sql: """
                        UPDATE courier_outbox SET method = ?, url = ?, headers = ?, body = ?, contentType = ?, idempotencyKey = ?, state = ?,
                        attempts = 0, nextAttempt = NULL, lastError = ? WHERE id = ?
                        """,
                    arguments: [
                        replacement.method.rawValue, replacement.url.absoluteString, replacement.encodedHeaders, replacement.body,
                        replacement.contentType, replacement.idempotencyKey, OutboxState.pending.name,
                        "Replaced after a conflict (412) by the app's resolver.", write.id,
                    ])
            }
        } catch {
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
        try delete(write.id, in: db)
    }

    /// Removes the entry numbered `id`: the one statement every way out of the outbox ends with.
    static func delete(_ id: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM courier_outbox WHERE id = ?", arguments: [id])
    }

    /// How many entries wait.
    func count() async throws(CourierError) -> Int {
        do {
            return try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM courier_outbox") ?? 0 }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }
}
