import Courier
import Foundation
import GRDB

// The outbox's two tables in the store's file: made, written and read (the moves are in +Moves).
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
                        enqueuedAt DATETIME NOT NULL, dependsOn INTEGER, undo BLOB, unanswered BOOLEAN NOT NULL DEFAULT 0,
                        bodyFile TEXT, uploadProtocol TEXT);
                    CREATE INDEX IF NOT EXISTS courier_outbox_scope ON courier_outbox (scope, id);
                    CREATE TABLE IF NOT EXISTS courier_dead_letter (
                        id INTEGER PRIMARY KEY, scope TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
                        idempotencyKey TEXT NOT NULL, statusCode INTEGER, body BLOB NOT NULL, message TEXT NOT NULL,
                        validationErrors BLOB, enqueuedAt DATETIME NOT NULL, failedAt DATETIME NOT NULL);
                    CREATE TABLE IF NOT EXISTS courier_outbox_outcome (
                        id INTEGER PRIMARY KEY, outcome TEXT NOT NULL, endedAt DATETIME NOT NULL);
                    """)
                // Columns later releases added, for a file an earlier one made.
                let columns = Set(try db.columns(in: "courier_outbox").map(\.name))
                for (name, type) in [("dependsOn", "INTEGER"), ("undo", "BLOB"), ("unanswered", "BOOLEAN NOT NULL DEFAULT 0"), ("bodyFile", "TEXT"), ("uploadProtocol", "TEXT"),
                ] where !columns.contains(name) {
                    try db.execute(sql: "ALTER TABLE courier_outbox ADD COLUMN \(name) \(type)")
                }
                try db.execute(sql: "UPDATE courier_outbox SET state = ? WHERE state = ?", arguments: [OutboxState.pending.name, OutboxState.inFlight.name])
            }
            let files = try store.database.read { db in try String.fetchAll(db, sql: "SELECT bodyFile FROM courier_outbox WHERE bodyFile IS NOT NULL") }
            bodies.sweep(keeping: Set(files))
        } catch {
            throw CourierError.store(error, path: store.path, doing: "prepare its outbox")
        }
    }

    /// Writes a new entry (its streamed body first, to a file beside the store) and makes its
    /// optimistic changes, in one transaction; returns it with its number.
    func insert(_ write: StoredWrite, body stream: StreamedBody?, applying changes: [StoreChange]) async throws(CourierError) -> OutboxEntry {
        var write = write
        try keepBody(stream, of: &write)
        defer { write.bodyFile.map(bodies.committed) }
        do {
            let written = try await store.database.write { [store, write] db in
                var written = write
                written.undo = try Self.apply(changes, store: store, in: db)
                try db.execute(
                    sql: """
                        INSERT INTO courier_outbox (
                            scope, method, url, headers, body, contentType, idempotencyKey, state, enqueuedAt, dependsOn, undo, bodyFile, uploadProtocol)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        written.scope, written.method.rawValue, written.url.absoluteString, written.encodedHeaders, written.body, written.contentType,
                        written.idempotencyKey, written.state.name, written.enqueuedAt, written.dependsOn, written.undo, written.bodyFile,
                        written.uploadProtocol,
                    ])
                written.id = db.lastInsertedRowID
                return written
            }
            return written.entry
        } catch {
            bodies.remove([write.bodyFile])
            if let error = error as? CourierError { throw error }
            throw CourierError.store(error, path: store.path, doing: "keep the write \(write.method) \(write.url.path) in its outbox (it was not kept)")
        }
    }

    /// Keeps a streamed body: in a file beside the store (named by the entry's key), or read
    /// whole into the entry for an in-memory store.
    func keepBody(_ stream: StreamedBody?, of write: inout StoredWrite) throws(CourierError) {
        guard let stream else { return }
        guard bodies.directory != nil else {
            do {
                write.body = try stream.collect()
            } catch {
                throw CourierError(.encodingFailed, "The body of \(write.method) \(write.url.path) could not be read to keep it: \(error)", underlyingError: error)
            }
            return
        }
        try bodies.keep(stream, name: write.idempotencyKey)
        write.bodyFile = write.idempotencyKey
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

    /// What became of `entry`, for its receipt: still queued, or how it left the outbox (a dead
    /// letter, discarded, or sent). How it left is read from the outcome the move wrote in its own
    /// transaction (by this outbox or by another one on the same file), and forgotten once read.
    package func receiptOutcome(of entry: OutboxEntry) async throws(CourierError) -> OutboxOutcome {
        do {
            return try await store.database.write { db in
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM courier_outbox WHERE id = ?", arguments: [entry.id]) == true { return .queued }
                guard let name = try String.fetchOne(db, sql: "SELECT outcome FROM courier_outbox_outcome WHERE id = ?", arguments: [entry.id])
                else { return .sent }
                try db.execute(sql: "DELETE FROM courier_outbox_outcome WHERE id = ?", arguments: [entry.id])
                return OutboxOutcome(name: name)
            }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }

    /// How many outcomes of entries that left the outbox refused are kept for receipts, for tests.
    package func keptOutcomeCount() async throws -> Int {
        try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM courier_outbox_outcome") ?? 0 }
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

    /// How many entries wait.
    func count() async throws(CourierError) -> Int {
        do {
            return try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM courier_outbox") ?? 0 }
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
    }
}
