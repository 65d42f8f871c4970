import Foundation
import GRDB
import Hummingbird

/// Append-only logs in SQLite, for tests of writes that must arrive once and in order (the
/// outbox's): `POST /logs/{name}` appends the request's body as a line and answers
/// `{"name", "line"}` (the line's number, from 1); `GET /logs/{name}` answers `{"lines": [...]}`.
struct LogRoutes: Sendable {
    let database: ServerDatabase

    func add(to router: Router<BasicRequestContext>) {
        router.post("logs/{name}", use: append)
        router.get("logs/{name}", use: lines)
    }

    @Sendable func append(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let text = String(decoding: Data(buffer: try await request.body.collect(upTo: 1 << 20)), as: UTF8.self)
        let line = try await database.queue.write { db -> Int in
            try db.execute(sql: "INSERT INTO log_line (name, text) VALUES (?, ?)", arguments: [name, text])
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM log_line WHERE name = ?", arguments: [name]) ?? 0
        }
        return try jsonResponse(["name": name, "line": String(line)], status: .created)
    }

    @Sendable func lines(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let lines = try await database.queue.read { db in
            try String.fetchAll(db, sql: "SELECT text FROM log_line WHERE name = ? ORDER BY id", arguments: [name])
        }
        return try jsonResponse(["lines": lines])
    }
}
