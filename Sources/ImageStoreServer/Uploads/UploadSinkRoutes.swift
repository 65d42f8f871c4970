import Courier
import Crypto
import Foundation
import Hummingbird

/// Upload sinks, for tests and benchmarks that check large uploads arrived exactly, keeping none
/// of the bytes:
///
/// - `POST /uploads/sink` parses a multipart body as it streams in and answers with each part's
///   name, file name, type, size and SHA-256;
/// - `POST /uploads/raw` answers with the size and SHA-256 of the body as received, whatever it is
///   (cheaper than parsing, for very large bodies).
struct UploadSinkRoutes: Sendable {
    struct PartSummary: Encodable {
        var name: String?
        var fileName: String?
        var contentType: String?
        var size: Int
        var sha256: String
    }

    func add(to router: Router<BasicRequestContext>) {
        router.post("uploads/sink", use: sink)
        router.post("uploads/raw", use: raw)
    }

    @Sendable func raw(_ request: Request, context: BasicRequestContext) async throws -> Response {
        var hash = SHA256()
        var size = 0
        for try await chunk in request.body {
            size += chunk.readableBytes
            chunk.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
            // A large body must not keep a thread of the concurrency pool from the process's other
            // tasks until it ends (chunks already arrived do not suspend): a yield per MiB.
            if size / (1 << 20) != (size - chunk.readableBytes) / (1 << 20) { await Task.yield() }
        }
        let digest = hash.finalize().hex
        return try jsonResponse(RawSummary(size: size, sha256: digest, contentType: request.headers[.contentType]))
    }

    struct RawSummary: Encodable {
        var size: Int
        var sha256: String
        var contentType: String?
    }

    @Sendable func sink(_ request: Request, context: BasicRequestContext) async throws -> Response {
        do {
            let parts = try await MultipartIntake.read(request, keepLimit: 0)
            return try jsonResponse(["parts": parts.map {
                PartSummary(name: $0.name, fileName: $0.fileName, contentType: $0.contentType, size: $0.size, sha256: $0.sha256)
            }])
        } catch MultipartIntake.Failure.notMultipart {
            return try jsonResponse(["error": "Send multipart/form-data."], status: .unsupportedMediaType)
        } catch MultipartIntake.Failure.malformed(let reason) {
            return try jsonResponse(["error": "The upload could not be read: \(reason)."], status: .badRequest)
        }
    }
}
