import Courier
import Foundation
import GRDB

/// A write as the outbox keeps it: what it sends on every attempt.
struct StoredWrite: Sendable {
    var id: Int64 = 0
    var scope: String
    var method: HTTPMethod
    var url: URL
    /// The headers but `Content-Type`, `Content-Length` and the client's authentication headers.
    var headers: HTTPHeaders
    var body: Data?
    var contentType: String?
    var idempotencyKey: String
    var state = OutboxState.pending
    var attempts = 0
    var nextAttempt: Date?
    var lastError: String?
    var enqueuedAt = Date()

    /// The request an attempt sends: as stored, with the idempotency key (a structured-field
    /// string), not retried by the client (the outbox retries), without alerts, never shared.
    var request: Request<Data> {
        let body = self.body.map { RequestBody.data($0, contentType: contentType ?? "application/octet-stream") } ?? .none
        var request = Request<Data>(method, url.absoluteString, body: body, headers: headers)
        request.headers["Idempotency-Key"] = "\"\(idempotencyKey)\""
        request.retryPolicy = RetryPolicy.none
        request.suppressErrorAlert = true
        request.deduplication = false
        request.name = "outbox"
        return request
    }

    var entry: OutboxEntry {
        OutboxEntry(
            id: id, scope: scope, method: method, url: url, idempotencyKey: idempotencyKey, state: state, attempts: attempts,
            nextAttempt: nextAttempt, lastError: lastError, enqueuedAt: enqueuedAt)
    }

    init(scope: String, method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, contentType: String?, idempotencyKey: String) {
        self.scope = scope
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.contentType = contentType
        self.idempotencyKey = idempotencyKey
    }

    /// A row of `courier_outbox`; `nil` when it does not hold a write (a URL that no longer parses).
    init?(row: Row) {
        guard let url = URL(string: row["url"]) else { return nil }
        id = row["id"]
        scope = row["scope"]
        method = HTTPMethod(rawValue: row["method"])
        self.url = url
        let pairs = (row["headers"] as Data?).flatMap { try? JSONDecoder().decode([[String]].self, from: $0) } ?? []
        headers = HTTPHeaders()
        for pair in pairs where pair.count == 2 { headers.add(name: pair[0], value: pair[1]) }
        body = row["body"]
        contentType = row["contentType"]
        idempotencyKey = row["idempotencyKey"]
        state = OutboxState(name: row["state"])
        attempts = row["attempts"]
        nextAttempt = row["nextAttempt"]
        lastError = row["lastError"]
        enqueuedAt = row["enqueuedAt"]
    }

    /// The headers as stored: name and value pairs, in order.
    var encodedHeaders: Data {
        (try? JSONEncoder().encode(headers.map { [$0.name, $0.value] })) ?? Data("[]".utf8)
    }
}
