import Foundation
import GRDB

/// The idempotency keys the server has seen, in its SQLite database (table `idempotency`), with
/// the answer each one got: what ``IdempotencyMiddleware`` consults.
struct IdempotencyLedger: Sendable {
    let database: ServerDatabase

    /// A stored answer.
    struct Answer: Sendable {
        var status: Int
        /// Name and value pairs, in order.
        var headers: [[String]]
        var body: Data
    }

    /// What to do with a request that carries a key.
    enum Decision: Sendable {
        /// The key is new: answer the request, then ``complete(_:with:)`` or ``abandon(_:)``.
        case proceed
        /// The key was answered for the same request: send this again.
        case replay(Answer)
        /// The first request with the key is still being answered.
        case inFlight
        /// The key was used for a different request.
        case mismatch
    }

    /// Opens the ledger. Keys left in flight by a server that stopped are forgotten: no request of
    /// that run is being answered any more, so a repeat may proceed.
    init(database: ServerDatabase) throws {
        self.database = database
        try database.queue.write { db in try db.execute(sql: "DELETE FROM idempotency WHERE status IS NULL") }
    }

    /// Claims `key` for a request with `fingerprint`, or says why not; one decision at a time.
    func begin(_ key: String, fingerprint: String) async throws -> Decision {
        try await database.queue.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT fingerprint, status, headers, body FROM idempotency WHERE key = ?", arguments: [key]) else {
                try db.execute(
                    sql: "INSERT INTO idempotency (key, fingerprint, createdAt) VALUES (?, ?, ?)", arguments: [key, fingerprint, Date()])
                return .proceed
            }
            guard String.fromDatabaseValue(row["fingerprint"]) == fingerprint else { return .mismatch }
            guard let status = Int.fromDatabaseValue(row["status"]) else { return .inFlight }
            let headers = Data.fromDatabaseValue(row["headers"]).flatMap { try? JSONDecoder().decode([[String]].self, from: $0) } ?? []
            return .replay(Answer(status: status, headers: headers, body: Data.fromDatabaseValue(row["body"]) ?? Data()))
        }
    }

    /// Stores the answer `key` got.
    func complete(_ key: String, with answer: Answer) async throws {
        let headers = try JSONEncoder().encode(answer.headers)
        try await database.queue.write { db in
            try db.execute(
                sql: "UPDATE idempotency SET status = ?, headers = ?, body = ? WHERE key = ?", arguments: [answer.status, headers, answer.body, key])
        }
    }

    /// Forgets `key` (its request failed without an answer), so a repeat may proceed.
    func abandon(_ key: String) async {
        _ = try? await database.queue.write { db in try db.execute(sql: "DELETE FROM idempotency WHERE key = ? AND status IS NULL", arguments: [key]) }
    }
}
