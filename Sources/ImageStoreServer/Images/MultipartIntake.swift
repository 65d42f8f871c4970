import Courier
import Crypto
import Foundation
import Hummingbird
import MultipartKit

/// Reads a `multipart/form-data` request body as it streams in (MultipartKit's parser), keeping
/// each part's headers, size and SHA-256, and its bytes only up to a limit.
struct MultipartIntake {
    /// One part as received.
    struct Part: Sendable {
        var headers: [String: String] = [:]
        var size = 0
        var sha256 = ""
        var body = Data()

        /// The `name` of `Content-Disposition`.
        var name: String? { disposition("name") }
        /// The `filename` of `Content-Disposition`.
        var fileName: String? { disposition("filename") }
        var contentType: String? { headers["content-type"] }
        var text: String { String(decoding: body, as: UTF8.self) }

        private func disposition(_ key: String) -> String? {
            guard let header = headers["content-disposition"] else { return nil }
            for item in header.split(separator: ";").dropFirst() {
                let pair = item.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == key else { continue }
                return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""])
            }
            return nil
        }
    }

    /// Why a body was refused.
    enum Failure: Error {
        case notMultipart
        case malformed(String)
        case tooLarge(part: String, limit: Int)
    }

    /// Collects what the parser reports, between chunks.
    private final class Collector {
        var parts: [Part] = []
        var current = Part()
        var hasher = SHA256()
        var inPart = false
        var overflow: String?
        let keepLimit: Int

        init(keepLimit: Int) { self.keepLimit = keepLimit }
    }

    /// The boundary of a `multipart/form-data` content type.
    static func boundary(of contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for item in contentType.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""])
            }
        }
        return nil
    }

    /// Reads every part; bytes are kept for parts up to `keepLimit` bytes (a larger part fails
    /// with ``Failure/tooLarge(part:limit:)`` unless `keepLimit` is `0`, which keeps no bytes).
    static func read(_ request: Request, keepLimit: Int) async throws -> [Part] {
        guard let boundary = boundary(of: request.headers[.contentType]) else { throw Failure.notMultipart }
        let parser = MultipartParser(boundary: boundary)
        var headerGuard = MultipartHeaderGuard(boundary: boundary)
        let collector = Collector(keepLimit: keepLimit)
        parser.onHeader = { name, value in
            collector.inPart = true
            collector.current.headers[name.lowercased()] = value
        }
        parser.onBody = { buffer in
            collector.inPart = true
            collector.current.size += buffer.readableBytes
            buffer.withUnsafeReadableBytes { collector.hasher.update(bufferPointer: $0) }
            guard collector.keepLimit > 0, collector.overflow == nil else { return }
            if collector.current.size > collector.keepLimit {
                collector.overflow = collector.current.name ?? "?"
                collector.current.body = Data()
            } else {
                collector.current.body.append(contentsOf: buffer.readableBytesView)
            }
        }
        parser.onPartComplete = {
            collector.current.sha256 = collector.hasher.finalize().hex
            collector.parts.append(collector.current)
            collector.current = Part()
            collector.hasher = SHA256()
            collector.inPart = false
        }
        var parsed = 0
        do {
            for try await chunk in request.body {
                guard headerGuard.accepts(chunk) else {
                    throw Failure.malformed("a part's header name holds a byte that is not ASCII")
                }
                try parser.execute(chunk)
                if let part = collector.overflow { throw Failure.tooLarge(part: part, limit: keepLimit) }
                // Chunks that have already arrived are handed over without suspending: a large upload
                // would keep a thread of the concurrency pool (two on two cores) from every other task
                // of the process until its body ends. A yield per MiB bounds that; one per chunk
                // would send the upload to the back of the queue dozens of times.
                parsed += chunk.readableBytes
                if parsed >= 1 << 20 {
                    parsed = 0
                    await Task.yield()
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.malformed("the multipart body is malformed")
        }
        if collector.inPart || collector.parts.isEmpty {
            throw Failure.malformed("the body ended before the closing boundary")
        }
        return collector.parts
    }
}
