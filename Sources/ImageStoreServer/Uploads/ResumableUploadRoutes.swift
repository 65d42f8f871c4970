import Courier
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Uploads that resume, in the two protocols Courier speaks, keeping none of the bytes (as
/// `/uploads/raw`): each upload keeps its length, the bytes received so far and their SHA-256.
///
/// tus 1.0 (core, creation, creation-with-upload, termination):
/// - `OPTIONS /uploads/tus`: `Tus-Version: 1.0.0` and the extensions;
/// - `POST /uploads/tus` with `Upload-Length` (and, optionally, the first bytes as
///   `application/offset+octet-stream`): `201` with `Location: /uploads/tus/{id}`;
/// - `HEAD /uploads/tus/{id}`: `Upload-Offset` and `Upload-Length`;
/// - `PATCH /uploads/tus/{id}` with `Upload-Offset` and `application/offset+octet-stream`: `204`
///   with the new `Upload-Offset`, `409` when the offset is not the server's;
/// - `DELETE /uploads/tus/{id}`: `204`.
///
/// The IETF resumable-upload draft, interop version 6, with `POST /uploads/resumable` as the
/// target resource (it answers `{"size", "sha256"}` of the whole body, as `/uploads/raw`):
/// - a `POST` with `Upload-Draft-Interop-Version: 6` and `Upload-Complete: ?0` creates the upload
///   (`201`, `Location: /uploads/resumable/{id}`, `Upload-Offset`), its body the first bytes;
/// - `HEAD /uploads/resumable/{id}`: `204` with `Upload-Offset` and `Upload-Complete`;
/// - `PATCH /uploads/resumable/{id}` with `Upload-Offset` and `application/partial-upload`: `204`
///   with the new offset, or with `Upload-Complete: ?1` the target's answer;
/// - `DELETE /uploads/resumable/{id}`: `204`.
///
/// `GET /uploads/tus/{id}` or `/uploads/resumable/{id}` answers `{"length", "offset", "sha256"}`
/// (the digest once the upload is whole). An upload not finished within a day is forgotten.
struct ResumableUploadRoutes: Sendable {
    let uploads = ResumableUploadTable()

    func add(to router: Router<BasicRequestContext>) {
        router.on("uploads/tus", method: .options) { _, _ in
            Response(status: .noContent, headers: Self.tusFields([.tusVersion: "1.0.0", .tusExtension: "creation,creation-with-upload,termination"]))
        }
        router.post("uploads/tus", use: createTus)
        router.post("uploads/resumable", use: createDraft)
        for kind in ResumableUploadTable.Kind.allCases {
            router.head("uploads/\(kind.rawValue)/{id}") { _, context in try offset(kind, context) }
            router.patch("uploads/\(kind.rawValue)/{id}") { request, context in try await append(kind, request, context) }
            router.delete("uploads/\(kind.rawValue)/{id}") { _, context in
                uploads.remove(try context.parameters.require("id"), kind)
                return Response(status: .noContent, headers: kind == .tus ? Self.tusFields() : Self.draftFields())
            }
            router.get("uploads/\(kind.rawValue)/{id}") { _, context in
                let entry = try entry(kind, context)
                return try jsonResponse(Summary(length: entry.length, offset: entry.offset, sha256: entry.complete ? entry.hash.finalize().hex : nil))
            }
        }
    }

    struct Summary: Encodable {
        var length: Int64?
        var offset: Int64
        var sha256: String?
    }

    // MARK: tus

    @Sendable func createTus(_ request: Request, context: BasicRequestContext) async throws -> Response {
        try Self.requireTus(request)
        guard let length = request.headers[.uploadLength].flatMap({ Int64($0) }), length >= 0 else {
            throw Self.failure(.badRequest, "Give the upload's length as Upload-Length (deferred lengths are not supported).", .tus)
        }
        let hasBody = request.headers[.contentType] != nil
        if hasBody, request.headers[.contentType] != "application/offset+octet-stream" {
            throw Self.failure(.unsupportedMediaType, "A creation with upload sends application/offset+octet-stream.", .tus)
        }
        let id = try uploads.create(.tus, length: length)
        var fields = Self.tusFields([.location: "/uploads/tus/\(id)"])
        if hasBody {
            fields[.uploadOffset] = String(try await receive(request.body, into: id, .tus, at: 0))
        }
        return Response(status: .created, headers: fields)
    }

    // MARK: the IETF draft

    @Sendable func createDraft(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let version = request.headers[.uploadDraftInteropVersion] else {
            // The target resource, for a plain upload.
            var digest = SHA256()
            var size: Int64 = 0
            for try await chunk in request.body {
                chunk.withUnsafeReadableBytes { digest.update(bufferPointer: $0) }
                size += Int64(chunk.readableBytes)
            }
            return try jsonResponse(Whole(size: size, sha256: digest.finalize().hex))
        }
        guard version == "6" else { throw Self.failure(.badRequest, "This server speaks interop version 6 of the resumable-upload draft.", .ietfDraft) }
        guard let complete = Self.flag(request.headers[.uploadComplete]) else {
            throw Self.failure(.badRequest, "A resumable upload says whether it is complete: Upload-Complete: ?0 or ?1.", .ietfDraft)
        }
        let length = request.headers[.uploadLength].flatMap { Int64($0) }
        let id = try uploads.create(.ietfDraft, length: length)
        let offset = try await receive(request.body, into: id, .ietfDraft, at: 0)
        if complete { return try finish(id, .ietfDraft, offset: offset) }
        return Response(
            status: .created,
            headers: Self.draftFields([.location: "/uploads/resumable/\(id)", .uploadComplete: "?0", .uploadOffset: String(offset)]))
    }

    struct Whole: Encodable {
        var size: Int64
        var sha256: String
    }

    /// The target's answer once the upload is whole (and the upload forgotten).
    private func finish(_ id: String, _ kind: ResumableUploadTable.Kind, offset: Int64) throws -> Response {
        guard let entry = uploads.entry(id, kind) else { throw Self.failure(.notFound, "No such upload.", kind) }
        if let length = entry.length, length != offset {
            throw Self.failure(.badRequest, "The upload ended at \(offset) bytes, not at its Upload-Length \(length).", kind)
        }
        uploads.markComplete(id, kind)
        var response = try jsonResponse(Whole(size: offset, sha256: entry.hash.finalize().hex))
        for field in Self.draftFields([.uploadComplete: "?1", .uploadOffset: String(offset)]) { response.headers[field.name] = field.value }
        return response
    }

    // MARK: both

    private func entry(_ kind: ResumableUploadTable.Kind, _ context: BasicRequestContext) throws -> ResumableUploadTable.Entry {
        let id = try context.parameters.require("id")
        guard let entry = uploads.entry(id, kind) else { throw Self.failure(.notFound, "No such upload; it may have expired.", kind) }
        return entry
    }

    private func offset(_ kind: ResumableUploadTable.Kind, _ context: BasicRequestContext) throws -> Response {
        let entry = try entry(kind, context)
        var fields: HTTPFields = [.uploadOffset: String(entry.offset), .cacheControl: "no-store"]
        if let length = entry.length { fields[.uploadLength] = String(length) }
        if kind == .tus { return Response(status: .ok, headers: Self.tusFields(fields)) }
        fields[.uploadComplete] = entry.complete ? "?1" : "?0"
        return Response(status: .noContent, headers: Self.draftFields(fields))
    }

    private func append(_ kind: ResumableUploadTable.Kind, _ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        if kind == .tus { try Self.requireTus(request) }
        let type = kind == .tus ? "application/offset+octet-stream" : "application/partial-upload"
        guard request.headers[.contentType] == type else { throw Self.failure(.unsupportedMediaType, "An append sends \(type).", kind) }
        guard let start = request.headers[.uploadOffset].flatMap({ Int64($0) }) else {
            throw Self.failure(.badRequest, "An append says where it starts: Upload-Offset.", kind)
        }
        let complete = kind == .ietfDraft ? Self.flag(request.headers[.uploadComplete]) ?? true : false
        let offset = try await receive(request.body, into: id, kind, at: start)
        if complete { return try finish(id, kind, offset: offset) }
        let fields: HTTPFields = [.uploadOffset: String(offset)]
        return Response(status: .noContent, headers: kind == .tus ? Self.tusFields(fields) : Self.draftFields(fields.merging([.uploadComplete: "?0"])))
    }

    /// Takes `body` into the upload `id` from `start`, keeping every byte that arrived even when
    /// the body ends early (a dropped connection), and returns the new offset.
    private func receive(_ body: RequestBody, into id: String, _ kind: ResumableUploadTable.Kind, at start: Int64) async throws -> Int64 {
        switch uploads.claim(id, kind, at: start) {
        case .missing: throw Self.failure(.notFound, "No such upload; it may have expired.", kind)
        case .conflict(let offset):
            var fields: HTTPFields = [.uploadOffset: String(offset)]
            if kind == .ietfDraft { fields[.uploadComplete] = "?0" }
            throw HTTPError(.conflict, headers: kind == .tus ? Self.tusFields(fields) : Self.draftFields(fields),
                            message: "The upload is at \(offset) bytes, not \(start), or another request is appending to it.")
        case .claimed(var entry):
            defer { uploads.release(id, kind, entry) }
            var received = 0
            for try await chunk in body {
                if let length = entry.length, entry.offset + Int64(chunk.readableBytes) > length {
                    throw Self.failure(.badRequest, "The upload is longer than its Upload-Length \(length).", kind)
                }
                chunk.withUnsafeReadableBytes { entry.hash.update(bufferPointer: $0) }
                entry.offset += Int64(chunk.readableBytes)
                // A large body must not keep a thread of the concurrency pool from other tasks.
                received += chunk.readableBytes
                if received >= 1 << 20 {
                    received = 0
                    await Task.yield()
                }
            }
            return entry.offset
        }
    }

    private static func requireTus(_ request: Request) throws {
        guard request.headers[.tusResumable] == "1.0.0" else {
            throw HTTPError(.preconditionFailed, headers: [.tusVersion: "1.0.0"], message: "This server speaks tus 1.0.0: send Tus-Resumable: 1.0.0.")
        }
    }

    private static func flag(_ value: String?) -> Bool? {
        switch value {
        case "?1": true
        case "?0": false
        default: nil
        }
    }

    private static func tusFields(_ fields: HTTPFields = [:]) -> HTTPFields { fields.merging([.tusResumable: "1.0.0"]) }
    private static func draftFields(_ fields: HTTPFields = [:]) -> HTTPFields { fields.merging([.uploadDraftInteropVersion: "6"]) }

    private static func failure(_ status: HTTPResponse.Status, _ message: String, _ kind: ResumableUploadTable.Kind) -> HTTPError {
        HTTPError(status, headers: kind == .tus ? tusFields() : draftFields(), message: message)
    }
}

extension HTTPFields {
    fileprivate func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged[field.name] = field.value }
        return merged
    }
}

extension HTTPField.Name {
    static let tusResumable = Self("Tus-Resumable")!
    static let tusVersion = Self("Tus-Version")!
    static let tusExtension = Self("Tus-Extension")!
    static let uploadLength = Self("Upload-Length")!
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadComplete = Self("Upload-Complete")!
    static let uploadDraftInteropVersion = Self("Upload-Draft-Interop-Version")!
}

/// The uploads in progress: what each received, and whether a request is appending to it now.
final class ResumableUploadTable: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case tus
        case ietfDraft = "resumable"
    }

    /// `@unchecked`: swift-crypto's `SHA256` is a value (copied on write) not marked `Sendable`.
    struct Entry: @unchecked Sendable {
        var length: Int64?
        var offset: Int64 = 0
        var hash = SHA256()
        var complete = false
        var busy = false
        let created = Date()
    }

    enum Claim {
        case missing
        case conflict(offset: Int64)
        case claimed(Entry)
    }

    /// At most this many uploads are kept; the oldest go first.
    static let capacity = 10_000
    private let entries = Locked([String: Entry]())

    func create(_ kind: Kind, length: Int64?) throws -> String {
        let id = UUID().uuidString.lowercased()
        entries.withLock { entries in
            let dayAgo = Date().addingTimeInterval(-86_400)
            entries = entries.filter { $0.value.created > dayAgo }
            if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.created < $1.value.created }) {
                entries[oldest.key] = nil
            }
            entries[kind.rawValue + "/" + id] = Entry(length: length)
        }
        return id
    }

    func entry(_ id: String, _ kind: Kind) -> Entry? { entries.withLock { $0[kind.rawValue + "/" + id] } }

    func remove(_ id: String, _ kind: Kind) { entries.withLock { $0[kind.rawValue + "/" + id] = nil } }

    func markComplete(_ id: String, _ kind: Kind) { entries.withLock { $0[kind.rawValue + "/" + id]?.complete = true } }

    /// Marks the upload as being appended to from `start`, when that is its offset and no other
    /// request appends to it.
    func claim(_ id: String, _ kind: Kind, at start: Int64) -> Claim {
        entries.withLock { entries in
            let key = kind.rawValue + "/" + id
            guard var entry = entries[key] else { return .missing }
            guard !entry.busy, !entry.complete, entry.offset == start else { return .conflict(offset: entry.offset) }
            entry.busy = true
            entries[key] = entry
            return .claimed(entry)
        }
    }

    /// Keeps what an append received and ends its claim.
    func release(_ id: String, _ kind: Kind, _ entry: Entry) {
        entries.withLock { entries in
            let key = kind.rawValue + "/" + id
            guard entries[key] != nil else { return }  // deleted meanwhile
            var kept = entry
            kept.busy = false
            // A tus upload is whole with its last byte, even when the request that brought it failed.
            if kind == .tus, kept.length == kept.offset { kept.complete = true }
            entries[key] = kept
        }
    }
}
