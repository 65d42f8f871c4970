import BenchWorkloads
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
        guard options.selects("upload.ahc") || options.selects("upload.rss-growth") else { return }
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
                let segment = segments.removeFirst()
                guard let url = segment.file else { return ByteBuffer(data: try StreamedBody(segments: [segment], contentType: "").collect()) }
                handle = try FileHandle(forReadingFrom: url)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(segments: body.segments) }
}

/// `courier-bench upload` (`upload.resume…` lines): a 256 MiB file sent as a resumable upload
/// (tus, the rest of the file per request, the default) to the sample server, which cuts the upload's body every
/// 16 MiB it receives (at 14 MiB, 30 MiB, …), resumed under a retry policy, against the same file streamed whole to
/// `/uploads/raw` without a cut, on each transport; the body bytes Courier's transport wrote
/// against the file's size; Courier's peak memory growth.
struct ResumableUploadBenchmark {
    let options: BenchOptions

    func run() async throws {
        guard options.selectsAny(under: "upload.resume") else { return }
        let directory = try scratchDirectory("resumable-upload")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        let size = Int64(options.scaled(256, minimum: 16)) << 20
        let dropEvery = 16 << 20
        try PatternFile.write(file, size: size)
        let server = try await ImageStoreServer.instrumented()
        for kind in ["ahc", "urlsession"] {
            let transport: any HTTPTransport = kind == "ahc" ? AsyncHTTPClientTransport() : URLSessionTransport()
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.cache = nil
            configuration.timeout = 3_600
            configuration.errorPresenter = nil
            configuration.resumableDownloadsDirectory = directory.appendingPathComponent("kept-\(kind)")
            configuration.defaultHeaders["Test-Drop-Every"] = String(dropEvery)
            // The cuts fall at 14 MiB, 30 MiB, …: 2 MiB before each multiple of 16 MiB.
            configuration.defaultHeaders["Test-Drop-Offset"] = String(2 << 20)
            configuration.retryPolicy = RetryPolicy(
                maximumAttempts: 1_000, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(1), budget: .seconds(3_600))
            let client = APIClient(configuration: configuration, transport: transport)
            let sentBytes = Locked<Int64>(0)
            let courier: @Sendable () async throws -> Void = {
                let answer = try await client.upload(Request<Data>(.post, "uploads/tus"), from: file, resuming: "bench")
                sentBytes.withLock { $0 = answer.metrics.bytesSent }
                let summary = try await client.send(Request<JSONValue>(.get, answer.url.absoluteString))
                guard summary.value["offset"]?.intValue.map(Int64.init) == size, summary.value["sha256"]?.stringValue != nil else {
                    throw BenchError("courier's resumable upload arrived as \(summary.value)")
                }
            }
            let raw: @Sendable () async throws -> Void = kind == "ahc" ? rawAsyncHTTPClient(transport, server, file, size) : rawURLSession(server, file, size)
            let name = "upload.resume.\(kind)"
            if options.selects(name) {
                try await PairedMeasurement.transfer(name, size: size, rounds: options.rounds, most: 4, extra: " drop_every=\(dropEvery)", courier: courier, raw: raw)
            }
            if options.selects("upload.resume.bytes-sent.\(kind)") {
                let received = server.flakyAttempts("uploads/received")
                let drops = server.flakyAttempts("uploads/drops")
                try await courier()
                let sent = sentBytes.withLock { $0 }
                print(
                    "upload.resume.bytes-sent.\(kind) ratio=\(String(format: "%.3f", Double(sent) / Double(size))) sent=\(sent) size=\(size)"
                        + " received=\(server.flakyAttempts("uploads/received") - received) drops=\(server.flakyAttempts("uploads/drops") - drops)")
            }
            if options.selects("upload.resume.rss-growth.\(kind)") {
                try await reportGrowth("upload.resume.rss-growth.\(kind)", size: size, of: courier)
            }
            if let transport = transport as? AsyncHTTPClientTransport { try await transport.shutdown() }
        }
        await server.stop()
    }

    /// The file streamed whole to `/uploads/raw` by raw async-http-client, 64 KiB at a time.
    private func rawAsyncHTTPClient(_ transport: any HTTPTransport, _ server: ImageStoreServer, _ file: URL, _ size: Int64) -> @Sendable () async throws -> Void {
        let client = (transport as? AsyncHTTPClientTransport)?.client ?? HTTPClient.shared
        let body = StreamedBody(segments: [.file(file, length: size)], contentType: "application/octet-stream")
        return {
            var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/uploads/raw")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .stream(RawFileChunks(body: body), length: .known(size))
            let response = try await client.execute(request, timeout: .hours(1))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok, let summary = try? JSONValue.parse(Data(buffer: bytes)), summary["size"]?.intValue.map(Int64.init) == size
            else { throw BenchError("raw upload arrived short") }
        }
    }

    /// The file sent whole to `/uploads/raw` by a plain `URLSession` upload task from the file.
    private func rawURLSession(_ server: ImageStoreServer, _ file: URL, _ size: Int64) -> @Sendable () async throws -> Void {
        {
            var request = URLRequest(url: server.baseURL.appendingPathComponent("uploads/raw"))
            request.httpMethod = "POST"
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            request.timeoutInterval = 3_600
            let (data, response) = try await URLSession.shared.upload(for: request, fromFile: file)
            guard (response as? HTTPURLResponse)?.statusCode == 200, let summary = try? JSONValue.parse(data),
                  summary["size"]?.intValue.map(Int64.init) == size
            else { throw BenchError("raw URLSession upload arrived short") }
        }
    }
}
