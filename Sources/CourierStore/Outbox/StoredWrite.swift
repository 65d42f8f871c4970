import Courier
import Foundation
import GRDB

/// A write as the outbox keeps it: what it sends on every attempt.
struct StoredWrite: Sendable {
    /// What goes on the wire, as kept.
    struct Wire: Sendable {
        var method: HTTPMethod
        var url: URL
        /// The headers but `Content-Type`, `Content-Length` and the client's authentication headers.
        var headers: HTTPHeaders
        var body: Data?
        /// A streamed body (files), copied beside the store when the entry is kept.
        var stream: StreamedBody?
        var contentType: String?
    }

    var id: Int64 = 0
    var scope: String
    var method: HTTPMethod
    var url: URL
    /// The headers but `Content-Type`, `Content-Length` and the client's authentication headers.
    var headers: HTTPHeaders
    var body: Data?
    var contentType: String?
    var idempotencyKey: String
    /// The entry that must be sent first.
    var dependsOn: Int64?
    /// The undo of its optimistic changes (``Outbox/Undo`` values).
    var undo: Data?
    /// The file (in ``OutboxBodies``) holding the body, for a streamed body.
    var bodyFile: String?
    /// The protocol (``ResumableUploadProtocol/description``) of a write sent as a resumable
    /// upload of ``bodyFile``.
    var uploadProtocol: String?
    var state = OutboxState.pending
    var attempts = 0
    var nextAttempt: Date?
    var lastError: String?
    var enqueuedAt = Date()

    /// The request an attempt sends: as stored, with the idempotency key (a structured-field
    /// string), not retried by the client (the outbox retries), without alerts, never shared.
    /// - Throws: ``CourierError/Kind/invalidRequest`` when its body file is gone.
    func request(bodies: OutboxBodies) throws(CourierError) -> Request<Data> {
        let body = self.body.map { RequestBody.data($0, contentType: contentType ?? "application/octet-stream") } ?? .none
        var request = Request<Data>(method, url.absoluteString, body: body, headers: headers)
        if let bodyFile {
            guard let file = bodies.url(of: bodyFile),
                  let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber
            else {
                throw CourierError(.invalidRequest, "The body of \(method) \(url.path) was kept in a file beside the store that is gone; it cannot be sent as it was made.")
            }
            request.streamedBody = StreamedBody(segments: [.file(file, length: size.int64Value)], contentType: contentType ?? "application/octet-stream")
        }
        request.headers["Idempotency-Key"] = "\"\(idempotencyKey)\""
        request.retryPolicy = RetryPolicy.none
        request.suppressErrorAlert = true
        request.deduplication = false
        request.name = "outbox"
        return request
    }

    /// The name of a resumable upload's kept state (``APIClient/resumableUploads()``).
    var uploadIdentifier: String { "outbox-" + idempotencyKey }

    /// Sends the write: as one request, or, for a resumable upload, as that upload of its kept
    /// file, resumed from what the server holds.
    func send(through client: APIClient, bodies: OutboxBodies) async throws(CourierError) {
        var request = try request(bodies: bodies)
        guard let name = uploadProtocol else {
            _ = try await client.send(request)
            return
        }
        let file = request.streamedBody?.segments.first?.file
        guard let uploadProtocol = ResumableUploadProtocol.named(name), let file else {
            throw CourierError(.invalidRequest, "The upload \(method) \(url.path) was kept without its file or with a protocol this release does not speak (\(name)).")
        }
        request.streamedBody = nil
        _ = try await client.upload(request, from: file, resuming: uploadIdentifier, using: uploadProtocol)
    }

    var entry: OutboxEntry {
        OutboxEntry(
            id: id, scope: scope, method: method, url: url, idempotencyKey: idempotencyKey, state: state, attempts: attempts,
            nextAttempt: nextAttempt, lastError: lastError, enqueuedAt: enqueuedAt, dependsOn: dependsOn)
    }

    /// A new entry of `scope` sending `wire`, with a new idempotency key.
    init(scope: String, wire: Wire, dependsOn: Int64?) {
        self.scope = scope
        method = wire.method
        url = wire.url
        headers = wire.headers
        body = wire.body
        contentType = wire.contentType
        idempotencyKey = UUID().uuidString.lowercased()
        self.dependsOn = dependsOn
    }

    /// A row of `courier_outbox`; `nil` when it does not hold a write (a missing or mistyped
    /// column, a URL that no longer parses): a damaged file gives no entry, never a crash.
    init?(row: Row) {
        guard let id = Int64.fromDatabaseValue(row["id"]), let scope = String.fromDatabaseValue(row["scope"]),
              let method = String.fromDatabaseValue(row["method"]), let url = String.fromDatabaseValue(row["url"]).flatMap(URL.init(string:)),
              let key = String.fromDatabaseValue(row["idempotencyKey"]), let state = String.fromDatabaseValue(row["state"]),
              let attempts = Int.fromDatabaseValue(row["attempts"]), let enqueuedAt = Date.fromDatabaseValue(row["enqueuedAt"])
        else { return nil }
        self.id = id
        self.scope = scope
        self.method = HTTPMethod(rawValue: method)
        self.url = url
        let pairs = Data.fromDatabaseValue(row["headers"]).flatMap { try? JSONDecoder().decode([[String]].self, from: $0) } ?? []
        headers = HTTPHeaders()
        for pair in pairs where pair.count == 2 { headers.add(name: pair[0], value: pair[1]) }
        body = Data.fromDatabaseValue(row["body"])
        contentType = String.fromDatabaseValue(row["contentType"])
        idempotencyKey = key
        self.state = OutboxState(name: state)
        self.attempts = attempts
        nextAttempt = Date.fromDatabaseValue(row["nextAttempt"])
        lastError = String.fromDatabaseValue(row["lastError"])
        self.enqueuedAt = enqueuedAt
        dependsOn = Int64.fromDatabaseValue(row["dependsOn"] ?? .null)
        undo = Data.fromDatabaseValue(row["undo"] ?? .null)
        bodyFile = String.fromDatabaseValue(row["bodyFile"] ?? .null)
        uploadProtocol = String.fromDatabaseValue(row["uploadProtocol"] ?? .null)
    }

    /// The headers as stored: name and value pairs, in order.
    var encodedHeaders: Data {
        (try? JSONEncoder().encode(headers.map { [$0.name, $0.value] })) ?? Data("[]".utf8)
    }
}
