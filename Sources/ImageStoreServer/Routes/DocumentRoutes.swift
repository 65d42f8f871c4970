import Foundation
import GRDB
import HTTPTypes
import Hummingbird

/// Named documents in SQLite, for cache tests and demos: any body, stored as sent.
///
/// - `GET /documents` lists names and versions (JSON), with their number in `X-Total-Count`;
/// - `GET /documents/{name}` returns the body with `ETag`, `Last-Modified` and `X-Document-Version`
///   (how many times it was stored: storing the same body again changes the version, not the
///   entity tag, so a `304` carries the new version), `304` when the client's copy is current,
///   `404` with a JSON error when absent; `?cacheControl=` sets the response's `Cache-Control`
///   (`no-store`, `max-age=60`, …) and `?vary=` its `Vary` (`*`, `Authorization`, …);
/// - `PUT /documents/{name}` (or POST, PATCH) stores the body and answers `{"name", "version"}`;
/// - `POST /documents/{name}/move?to=other` renames it (replacing `other`) and answers `201` with
///   `Location: /documents/other`;
/// - `DELETE /documents/{name}` removes it.
struct DocumentRoutes: Sendable {
    let database: ServerDatabase

    func add(to router: Router<BasicRequestContext>) {
        router.get("documents", use: list)
        router.get("documents/{name}", use: get)
        for method in [HTTPRequest.Method.put, .post, .patch] {
            router.on("documents/{name}", method: method, use: put)
        }
        router.delete("documents/{name}", use: delete)
        router.post("documents/{name}/move", use: move)
    }

    @Sendable func list(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let rows = try await database.queue.read { db -> [(name: String, version: Int64, updatedAt: Date)] in
            try Row.fetchAll(db, sql: "SELECT name, version, updatedAt FROM document ORDER BY name")
                .map { ($0["name"], $0["version"], $0["updatedAt"]) }
        }
        let items = rows.map { ["name": $0.name, "version": String($0.version)] }
        let newest = rows.map(\.updatedAt).max()
        let body = ByteBuffer(data: try JSONEncoder().encode(["documents": items]))
        return ConditionalResponse.make(
            request, body: body, contentType: "application/json", lastModified: newest, fields: [Self.totalCount: String(rows.count)])
    }

    @Sendable func get(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let row = try await database.queue.read { db -> (body: Data, contentType: String, updatedAt: Date, version: Int64)? in
            try Row.fetchOne(db, sql: "SELECT body, contentType, updatedAt, version FROM document WHERE name = ?", arguments: [name])
                .map { ($0["body"], $0["contentType"], $0["updatedAt"], $0["version"]) }
        }
        guard let row else {
            return try jsonResponse(["error": "The document \(name) does not exist."], status: .notFound)
        }
        var fields: HTTPFields = [Self.documentVersion: String(row.version)]
        if let vary = request.uri.queryParameters.get("vary") { fields[.vary] = String(vary) }
        return ConditionalResponse.make(
            request, body: ByteBuffer(data: row.body), contentType: row.contentType, lastModified: row.updatedAt,
            cacheControl: request.uri.queryParameters.get("cacheControl"), fields: fields)
    }

    private static let totalCount = HTTPField.Name("X-Total-Count")!
    private static let documentVersion = HTTPField.Name("X-Document-Version")!

    @Sendable func put(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let body = try await request.body.collect(upTo: 16 << 20)
        let contentType = request.headers[.contentType] ?? "application/octet-stream"
        let version = try await database.queue.write { db -> Int64 in
            let current = try Int64.fetchOne(db, sql: "SELECT version FROM document WHERE name = ?", arguments: [name]) ?? 0
            try db.execute(
                sql: "INSERT OR REPLACE INTO document (name, body, contentType, version, updatedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [name, Data(buffer: body), contentType, current + 1, Date()])
            return current + 1
        }
        return try jsonResponse(["name": name, "version": String(version)])
    }

    @Sendable func move(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        guard let target = request.uri.queryParameters.get("to"), !target.isEmpty, !target.contains("/") else {
            return try jsonResponse(["error": "Name the new document with ?to= (no slash)."], status: .badRequest)
        }
        let moved = try await database.queue.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM document WHERE name = ?", arguments: [name]) != nil else { return false }
            try db.execute(sql: "DELETE FROM document WHERE name = ?", arguments: [target])
            try db.execute(
                sql: "UPDATE document SET name = ?, version = version + 1, updatedAt = ? WHERE name = ?", arguments: [target, Date(), name])
            return true
        }
        guard moved else { return try jsonResponse(["error": "The document \(name) does not exist."], status: .notFound) }
        var response = try jsonResponse(["name": target], status: .created)
        response.headers[.location] = "/documents/" + target
        return response
    }

    @Sendable func delete(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let deleted = try await database.queue.write { db in
            try db.execute(sql: "DELETE FROM document WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
        guard deleted else { return try jsonResponse(["error": "The document \(name) does not exist."], status: .notFound) }
        return try jsonResponse(["deleted": name])
    }
}
