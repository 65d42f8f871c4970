import Courier
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Honours the `Idempotency-Key` request header on writes (POST, PUT, PATCH, DELETE), as the IETF
/// draft (draft-ietf-httpapi-idempotency-key-header) describes, so that a client may send a write
/// again after losing its answer without the write taking effect twice:
///
/// - the first request with a key is answered as usual, and the answer is kept (in SQLite, so it
///   outlives a restart of the server), unless it is a failure worth retrying (408, 429, 5xx):
///   then the key is released and a repeat is answered anew;
/// - a repeat of that request (same method, target and body) gets the kept answer again, marked
///   `Idempotent-Replayed: true`, and has no effect;
/// - the key with a different request is refused with 422;
/// - a repeat while the first is still being answered is refused with 409.
///
/// A request without the header is untouched. Its body is read whole (up to 16 MiB) to be compared.
struct IdempotencyMiddleware<Context: RequestContext>: RouterMiddleware {
    let ledger: IdempotencyLedger

    static var headerName: HTTPField.Name { HTTPField.Name("Idempotency-Key")! }
    static var replayedName: HTTPField.Name { HTTPField.Name("Idempotent-Replayed")! }
    static var maximumBody: Int { 16 << 20 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard [.post, .put, .patch, .delete].contains(request.method), let value = request.headers[Self.headerName] else {
            return try await next(request, context)
        }
        guard let key = Self.key(value) else {
            return try jsonResponse(ErrorBody(error: "Idempotency-Key must be a quoted string of 1 to 255 characters."), status: .badRequest)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maximumBody)
        } catch {
            return try jsonResponse(ErrorBody(error: "A request with an Idempotency-Key carries at most 16 MiB."), status: .contentTooLarge)
        }
        switch try await ledger.begin(key, fingerprint: Self.fingerprint(request, body: body)) {
        case .mismatch:
            return try jsonResponse(ErrorBody(error: "The Idempotency-Key \(key) was used for a different request."), status: .unprocessableContent)
        case .inFlight:
            return try jsonResponse(ErrorBody(error: "A request with the Idempotency-Key \(key) is still being answered; try again later."), status: .conflict)
        case .replay(let answer):
            var headers = HTTPFields()
            for pair in answer.headers where pair.count == 2 {
                if let name = HTTPField.Name(pair[0]) { headers.append(HTTPField(name: name, value: pair[1])) }
            }
            headers[Self.replayedName] = "true"
            // A kept status came from a response; one HTTP cannot hold would mean a damaged file.
            guard (100...999).contains(answer.status) else { throw HTTPError(.internalServerError) }
            return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(data: answer.body)))
        case .proceed:
            let response: Response
            do {
                response = try await next(request, context)
            } catch {
                await ledger.abandon(key)
                throw error
            }
            // A failure worth retrying (408, 429, 5xx) is not kept: the repeat is answered anew.
            let code = response.status.code
            if code == 408 || code == 429 || code >= 500 {
                await ledger.abandon(key)
                return response
            }
            let collected = Locked(ByteBuffer())
            try await response.body.write(CollectingWriter(collected: collected))
            let answerBody = collected.withLock { $0 }
            let kept = response.headers.filter { ![.contentLength, .date, .server, .transferEncoding].contains($0.name) }
            try await ledger.complete(
                key, with: .init(status: response.status.code, headers: kept.map { [$0.name.rawName, $0.value] }, body: Data(buffer: answerBody)))
            return Response(status: response.status, headers: response.headers, body: .init(byteBuffer: answerBody))
        }
    }

    /// The key of a header value: a structured-field string (`"…"`), or the bare value.
    static func key(_ value: String) -> String? {
        var key = value.trimmingCharacters(in: .whitespaces)
        if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
        return (1...255).contains(key.utf8.count) ? key : nil
    }

    /// What makes two requests the same request: method, target and body.
    static func fingerprint(_ request: Request, body: ByteBuffer) -> String {
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method.rawValue) \(request.uri.description)\n".utf8))
        body.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().hex
    }

    /// Keeps the bytes a response body writes.
    private struct CollectingWriter: ResponseBodyWriter {
        let collected: Locked<ByteBuffer>

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collected.withLock { _ = $0.writeBuffer(&buffer) }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
