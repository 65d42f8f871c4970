import Foundation
import GRDB
import Hummingbird

/// Seed 004's image store on SQLite:
///
/// - `POST /images`: multipart with an `image` file part and optional `title` and `description`
///   fields; stores them and answers 201 with the metadata (its `id` included);
/// - `GET /images`: the metadata of every image; `GET /images/{id}`: one image's metadata (JSON, or
///   XML with `?type=xml`); `GET /images/{id}/data`: the bytes, or the range `Range` asks for
///   under `If-Range` (206 with `Content-Range`, 416 past the end; ``RangeSelection``);
/// - `PATCH /images/{id}`: multipart (fields and/or a new image) or JSON (`title`, `description`);
/// - `DELETE /images/{id}`: removes it; afterwards its routes answer 404 with a JSON error.
///
/// The three GET routes send an `ETag` (a digest of the body) and answer `If-None-Match` with a
/// bodiless 304 while the client's copy is current. `PATCH` and `DELETE` honour `If-Match` with
/// the metadata's tag: another version answers 412 with the current tag, and nothing changes.
///
/// Refused with a 4xx and a JSON `error`, storing nothing: a body that is not multipart (415), a
/// malformed one (400), no image (422), bytes that are not PNG, JPEG, GIF or WebP (415), an image
/// over ``ServerConfiguration/maximumImageSize`` (413).
struct ImageRoutes: Sendable {
    let database: ServerDatabase
    let maximumImageSize: Int

    func add(to router: Router<BasicRequestContext>) {
        router.post("images", use: create)
        router.get("images", use: list)
        router.get("images/{id}", use: show)
        router.get("images/{id}/data", use: data)
        router.patch("images/{id}", use: update)
        router.delete("images/{id}", use: delete)
    }

    /// What an upload carried, checked.
    struct Upload: Sendable {
        var title: String?
        var description: String?
        var image: (bytes: Data, fileName: String, kind: ImageKind)?
    }

    @Sendable func create(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let upload: Upload
        switch await read(request) {
        case .failure(let refusal): return refusal.response
        case .success(let value): upload = value
        }
        guard let image = upload.image else {
            return try jsonResponse(ErrorBody(error: "The upload has no image part.", errors: ["image": ["is missing"]]), status: .unprocessableContent)
        }
        let now = Date()
        let id = try await database.queue.write { db -> Int64 in
            try db.execute(
                sql: "INSERT INTO image (title, description, fileName, mimeType, data, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [upload.title ?? "", upload.description ?? "", image.fileName, image.kind.rawValue, image.bytes, now, now])
            return db.lastInsertedRowID
        }
        guard let record = try await record(id) else { throw HTTPError(.internalServerError) }
        return try formatted(record, root: "image", status: .created, request: request)
    }

    @Sendable func list(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let records = try await database.queue.read { db in
            try ImageRecord.fetchAll(db, sql: "SELECT \(ImageRecord.columns) FROM image ORDER BY id")
        }
        return try current(["images": records], root: "images", request: request)
    }

    @Sendable func show(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: Int64.self)
        guard let record = try await record(id) else { return try Self.notFound(id) }
        return try current(record, root: "image", request: request)
    }

    @Sendable func data(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: Int64.self)
        let row = try await database.queue.read { db -> (data: Data, mimeType: String)? in
            try Row.fetchOne(db, sql: "SELECT data, mimeType FROM image WHERE id = ?", arguments: [id]).map { ($0["data"], $0["mimeType"]) }
        }
        guard let row else { return try Self.notFound(id) }
        return ConditionalResponse.make(request, body: ByteBuffer(data: row.data), contentType: row.mimeType, lastModified: nil, ranges: true)
    }

    @Sendable func update(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: Int64.self)
        guard try await record(id) != nil else { return try Self.notFound(id) }
        var upload = Upload()
        if MultipartIntake.boundary(of: request.headers[.contentType]) != nil {
            switch await read(request) {
            case .failure(let refusal): return refusal.response
            case .success(let value): upload = value
            }
        } else {
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let fields = try? JSONDecoder().decode([String: String].self, from: Data(buffer: body)) else {
                return try jsonResponse(ErrorBody(error: "Send multipart/form-data or a JSON object of title and description."), status: .badRequest)
            }
            upload.title = fields["title"]
            upload.description = fields["description"]
        }
        let change = upload
        let outcome = try await database.queue.write { db -> Precondition in
            let precondition = try Self.precondition(request, image: id, in: db)
            guard case .holds = precondition else { return precondition }
            if let title = change.title { try db.execute(sql: "UPDATE image SET title = ? WHERE id = ?", arguments: [title, id]) }
            if let description = change.description {
                try db.execute(sql: "UPDATE image SET description = ? WHERE id = ?", arguments: [description, id])
            }
            if let image = change.image {
                try db.execute(
                    sql: "UPDATE image SET data = ?, fileName = ?, mimeType = ? WHERE id = ?",
                    arguments: [image.bytes, image.fileName, image.kind.rawValue, id])
            }
            try db.execute(sql: "UPDATE image SET updatedAt = ? WHERE id = ?", arguments: [Date(), id])
            return .holds
        }
        if let refusal = try outcome.refusal(id) { return refusal }
        guard let record = try await record(id) else { return try Self.notFound(id) }
        let (body, contentType) = try formattedBody(record, root: "image", request: request)
        return Response(
            status: .ok, headers: [.contentType: contentType, .eTag: ConditionalResponse.etag(of: body)], body: .init(byteBuffer: body))
    }

    @Sendable func delete(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: Int64.self)
        let outcome = try await database.queue.write { db -> Precondition in
            let precondition = try Self.precondition(request, image: id, in: db)
            guard case .holds = precondition else { return precondition }
            try db.execute(sql: "DELETE FROM image WHERE id = ?", arguments: [id])
            return .holds
        }
        if let refusal = try outcome.refusal(id) { return refusal }
        return try formatted(["deleted": id], root: "image", request: request)
    }

    /// `value` formatted as the request asks, or a 304 when the client's copy is current.
    private func current(_ value: some Encodable, root: String, request: Request) throws -> Response {
        let (body, contentType) = try formattedBody(value, root: root, request: request)
        return ConditionalResponse.make(request, body: body, contentType: contentType, lastModified: nil)
    }

    private func record(_ id: Int64) async throws -> ImageRecord? {
        try await database.queue.read { db in
            try ImageRecord.fetchOne(db, sql: "SELECT \(ImageRecord.columns) FROM image WHERE id = ?", arguments: [id])
        }
    }

    /// Whether a change to an image may go ahead, decided in the change's transaction.
    enum Precondition {
        case holds
        case notFound
        /// `If-Match` names another version; the current one's tag.
        case failed(currentTag: String)

        /// The answer for a change that may not go ahead; `nil` when it may.
        func refusal(_ id: Int64) throws -> Response? {
            switch self {
            case .holds: return nil
            case .notFound: return try ImageRoutes.notFound(id)
            case .failed(let tag):
                var response = try jsonResponse(
                    ErrorBody(error: "Image \(id) changed since the copy named in If-Match; its current ETag is \(tag). Get it again, then retry."),
                    status: .preconditionFailed)
                response.headers[.eTag] = tag
                return response
            }
        }
    }

    /// Whether image `id` exists and matches the request's `If-Match`: the tag of the image's
    /// metadata as a GET of the same URL (same `type`) would answer it.
    static func precondition(_ request: Request, image id: Int64, in db: Database) throws -> Precondition {
        guard let current = try ImageRecord.fetchOne(db, sql: "SELECT \(ImageRecord.columns) FROM image WHERE id = ?", arguments: [id]) else {
            return .notFound
        }
        guard request.headers[.ifMatch] != nil else { return .holds }
        let tag = ConditionalResponse.etag(of: try formattedBody(current, root: "image", request: request).body)
        return ConditionalResponse.matches(request, etag: tag) ? .holds : .failed(currentTag: tag)
    }

    static func notFound(_ id: Int64) throws -> Response {
        try jsonResponse(ErrorBody(error: "Image \(id) was not found."), status: .notFound)
    }
}
