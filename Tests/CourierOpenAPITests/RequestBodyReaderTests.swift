import BenchWorkloads
import Courier
import Foundation
import OpenAPIRuntime
import Testing

@testable import CourierOpenAPI

/// How a generated request's body is read before sending: in memory up to 1 MiB, spooled to a
/// temporary file past that, refused past the transport's limit.
@Suite struct RequestBodyReaderTests {
    /// `count` bytes as a body of unknown length, in 64 KiB chunks, readable once.
    static func streamed(_ bytes: Data) -> HTTPBody {
        let chunks = stride(from: 0, to: bytes.count, by: 64 << 10).map { ArraySlice(bytes[$0..<min($0 + (64 << 10), bytes.count)]) }
        return HTTPBody(AsyncStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }, length: .unknown)
    }

    static let bytes = PatternBytes.make(3 << 20) { UInt8(truncatingIfNeeded: $0 &* 7) }

    @Test func aSmallBodyStaysInMemory() async throws {
        let read = try await RequestBodyReader(limit: 64 << 20, operationID: "op").read(Self.streamed(Self.bytes.prefix(100_000)))
        guard case .memory(let data) = read else { Issue.record("spooled: \(read)"); return }
        #expect(data == Self.bytes.prefix(100_000))
    }

    @Test func aLargeBodyIsSpooledToAFileWithEveryByte() async throws {
        let read = try await RequestBodyReader(limit: 64 << 20, operationID: "op").read(Self.streamed(Self.bytes))
        guard case .file(let file, let length) = read else { Issue.record("in memory"); return }
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(length == Int64(Self.bytes.count))
        #expect(try Data(contentsOf: file) == Self.bytes)
    }

    @Test func aBodyOverTheLimitFailsWithoutAFileLeftBehind() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for body in [Self.streamed(Self.bytes), HTTPBody(Self.bytes)] {  // unknown length, then known
            let failure = await #expect(throws: CourierError.self) {
                var reader = RequestBodyReader(limit: 2 << 20, operationID: "uploadLog")
                reader.directory = directory
                _ = try await reader.read(body)
            }
            #expect(failure?.kind == .invalidRequest)
            #expect(failure?.message.contains("uploadLog") == true && failure?.message.contains("maximumRequestBodySize") == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        let negative = await #expect(throws: CourierError.self) { _ = try await RequestBodyReader(limit: -1, operationID: "op").read(HTTPBody()) }
        #expect(negative?.kind == .invalidRequest)
    }
}
