import Courier
import CourierDemo
import CourierAsyncHTTPClient
import Crypto
import BenchWorkloads
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// Uploads a large file as multipart through Courier to an in-process server and measures the
/// process's peak memory growth: the check behind "a 200 MB upload stays under 64 MB", run in a
/// process of its own (`courier-test-helper upload-probe`) so nothing else moves the figures.
package enum UploadProbe {
    /// What one probe measured.
    package struct Result: Sendable, CustomStringConvertible {
        /// Bytes in the file.
        package let bytes: Int64
        /// Seconds for the upload.
        package let seconds: Double
        /// Peak resident memory during the upload minus resident memory before it, in MiB.
        package let rssGrowthMB: Double
        /// Whether the server received exactly the file's bytes (size and SHA-256).
        package let arrivedIntact: Bool

        package var description: String {
            "upload-probe bytes=\(bytes) seconds=\(String(format: "%.2f", seconds)) rss-growth-mb=\(String(format: "%.1f", rssGrowthMB)) intact=\(arrivedIntact)"
        }
    }

    /// Writes a file of `size` bytes under `directory`, uploads it through `transport` to a new
    /// server's `/uploads/sink`, and removes the file.
    package static func run(size: Int64, transport kind: DemoTransport, directory: URL) async throws -> Result {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("probe-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        try PatternFile.write(file, size: size)
        let server = try await ImageStoreServer.instrumented()
        let transport: any HTTPTransport = kind == .ahc ? AsyncHTTPClientTransport() : URLSessionTransport()
        do {
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.cache = nil
            configuration.timeout = 600
            let client = APIClient(configuration: configuration, transport: transport)
            // A small upload first, so the figure is what the size of the upload costs, not the
            // one-time cost of the first request (connection, buffers, code paged in).
            let warmUp = directory.appendingPathComponent("probe-\(UUID().uuidString).warm")
            defer { try? FileManager.default.removeItem(at: warmUp) }
            try PatternFile.write(warmUp, size: 1 << 20)
            _ = try await client.send(Request<JSONValue>(.post, "uploads/raw", body: .multipart([
                .text("note", "warm-up"), .file("file", warmUp, mimeType: "application/octet-stream"),
            ])))
            let before = MemoryStatus.read()
            MemoryStatus.resetPeak()
            let start = ContinuousClock.now
            let parts: [MultipartPart] = [.text("note", "probe"), .file("file", file, mimeType: "application/octet-stream")]
            let response = try await client.send(Request<JSONValue>(.post, "uploads/raw", body: .multipart(parts)))
            let elapsed = (ContinuousClock.now - start).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            let peak = MemoryStatus.read()
            // The server hashed the multipart body as it arrived; hash what was meant to be sent,
            // with the boundary the request used.
            let boundary = response.value["contentType"]?.stringValue?.components(separatedBy: "boundary=").last ?? ""
            let sent = try MultipartFormData(boundary: boundary).stream(parts)
            let intact = try response.value["size"]?.intValue.map(Int64.init) == sent.length
                && response.value["sha256"]?.stringValue == Self.digest(sent)
            try? await (transport as? AsyncHTTPClientTransport)?.shutdown()
            await server.stop()
            let growth = Double(max(0, (peak.peakKB ?? peak.residentKB) - before.residentKB)) / 1024
            return Result(bytes: size, seconds: seconds, rssGrowthMB: growth, arrivedIntact: intact)
        } catch {
            try? await (transport as? AsyncHTTPClientTransport)?.shutdown()
            await server.stop()
            throw error
        }
    }

    /// The SHA-256 of a streamed body, read as it would be sent.
    static func digest(_ body: StreamedBody) throws -> String {
        var hash = SHA256()
        var reader = body.chunks(size: 1 << 20).makeIterator()
        while let chunk = try reader.next() { hash.update(data: chunk) }
        return hash.finalize().hex
    }
}
