import BenchWorkloads
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import NIOCore
import NIOFoundationCompat

/// `courier-bench upload`: a 1 GiB file sent as multipart through Courier (async-http-client
/// transport) against the same bytes streamed by raw async-http-client, both to the server's
/// `/uploads/raw` (which hashes what it receives), and Courier's peak memory growth.
struct UploadBenchmark {
    let options: BenchOptions

    func run() async throws {
        let directory = try scratchDirectory("upload")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        let size = Int64(options.scaled(1024, minimum: 16)) << 20
        try PatternFile.write(file, size: size)
        let server = try await ImageStoreServer.instrumented()
        let transport = AsyncHTTPClientTransport()
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.timeout = 3_600
        let client = APIClient(configuration: configuration, transport: transport)
        let parts: [MultipartPart] = [.text("title", "bench"), .file("file", file, mimeType: "application/octet-stream")]
        let courier: @Sendable () async throws -> Void = {
            let response = try await client.send(Request<JSONValue>(.post, "uploads/raw", body: .multipart(parts)))
            guard response.value["size"]?.intValue.map(Int64.init) ?? 0 > size else { throw BenchError("courier upload arrived short") }
        }
        // Raw: the same multipart bytes (head, file, tail), the file read in 64 KiB chunks.
        let body = try MultipartFormData(boundary: "bench-boundary").stream(parts)
        let raw: @Sendable () async throws -> Void = {
            var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/uploads/raw")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .stream(RawFileChunks(body: body), length: .known(body.length))
            let response = try await transport.client.execute(request, timeout: .hours(1))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok, let summary = try? JSONValue.parse(Data(buffer: bytes)),
                  summary["size"]?.intValue.map(Int64.init) == body.length
            else { throw BenchError("raw upload arrived short") }
        }
        if options.selects("upload.ahc") {
            try await PairedMeasurement.transfer("upload.ahc", size: size, rounds: options.rounds, most: 6, courier: courier, raw: raw)
        }
        if options.selects("upload.rss-growth") {
            try await reportGrowth("upload.rss-growth", size: size, of: courier)
        }
        try await transport.shutdown()
        await server.stop()
    }
}

/// A streamed body's bytes, with files read by plain `FileHandle` calls: what a user of raw
/// async-http-client would write.
struct RawFileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: StreamedBody

    struct AsyncIterator: AsyncIteratorProtocol {
        var segments: [StreamedBody.Segment]
        var handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            while true {
                if let handle {
                    if let chunk = try handle.read(upToCount: 64 * 1024), !chunk.isEmpty { return ByteBuffer(data: chunk) }
                    try handle.close()
                    self.handle = nil
                }
                guard !segments.isEmpty else { return nil }
                switch segments.removeFirst() {
                case .bytes(let data): return ByteBuffer(data: data)
                case .file(let url, _): handle = try FileHandle(forReadingFrom: url)
                }
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(segments: body.segments) }
}
