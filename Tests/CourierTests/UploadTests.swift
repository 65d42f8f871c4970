import Courier
import CourierAsyncHTTPClient
import Crypto
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Multipart uploads (in memory and streamed from files), the server receiving exactly what was
/// sent, progress, cancellation, the size limit on responses, and a large upload's memory.
/// Serialized: the cancellation test counts URLSession's temporary upload files.
@Suite(.serialized) struct UploadTests {
    /// Bytes that look like multipart structure: CRLFs, dashes, a boundary-like run.
    static let tricky = Data("--courier-0000\r\n--\r\nContent-Disposition: x\r\n\r\n--".utf8) + Data((0...255).map { UInt8($0) })

    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).hex }

    /// A file of `size` bytes repeating `pattern`, under a new temporary directory.
    static func file(size: Int, pattern: Data = tricky) throws -> (URL, Data, TemporaryDirectory) {
        let directory = try TemporaryDirectory.created()
        var data = Data(capacity: size)
        while data.count < size { data.append(pattern.prefix(size - data.count)) }
        let url = directory.url.appendingPathComponent("upload.bin")
        try data.write(to: url)
        return (url, data, directory)
    }

    func sinkParts(_ response: Response<JSONValue>) -> [[String: JSONValue]] {
        response.value["parts"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    @Test(arguments: TransportKind.allCases)
    func theServerReceivesExactlyWhatWasSent(kind: TransportKind) async throws {
        let (url, contents, directory) = try Self.file(size: 700_000)
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let inMemory = Self.tricky + Data("\r\n--".utf8)
                let upload = Request<JSONValue>(.post, "uploads/sink", body: .multipart([
                    .text("title", "Pôr do sol\r\n--not-a-boundary"),
                    .data("blob", inMemory, fileName: "blob.bin", mimeType: "application/octet-stream"),
                    .file("file", url),
                    MultipartPart(name: "tagged", content: .text("x"), headers: ["X-Part": "yes"]),
                ]))
                #expect(try client.transportRequest(for: upload).bodyStream != nil)  // the file is streamed
                let parts = sinkParts(try await client.send(upload))
                #expect(parts.count == 4)
                #expect(parts.map { $0["name"]?.stringValue } == ["title", "blob", "file", "tagged"])
                #expect(parts[0]["sha256"]?.stringValue == Self.sha256(Data("Pôr do sol\r\n--not-a-boundary".utf8)))
                #expect(parts[1]["sha256"]?.stringValue == Self.sha256(inMemory) && parts[1]["fileName"]?.stringValue == "blob.bin")
                #expect(parts[2]["size"]?.intValue == contents.count && parts[2]["sha256"]?.stringValue == Self.sha256(contents))
                #expect(parts[2]["fileName"]?.stringValue == "upload.bin")
                #expect(parts[2]["contentType"]?.stringValue == "application/octet-stream")

                // Automatic multipart: parameters with a file or data value, nested names flattened.
                let automatic = Request<JSONValue>(.post, "uploads/sink", body: [
                    "user": ["name": "Ana", "photos": [.file(url), .data(inMemory, fileName: "b.bin")]],
                ])
                let flattened = sinkParts(try await client.send(automatic))
                #expect(flattened.map { $0["name"]?.stringValue } == ["user[name]", "user[photos][]", "user[photos][]"])
                #expect(flattened[1]["sha256"]?.stringValue == Self.sha256(contents))

                // A `Request<Data>` upload hands back the raw body, as `Request<Data>` does elsewhere.
                let raw = try await client.send(Request<Data>(.post, "uploads/raw", body: .multipart([.text("a", "b")]))).value
                let summary = try JSONValue.parse(raw)
                #expect(summary["size"]?.intValue ?? 0 > 0)
            }
        }
    }

    /// A file that becomes shorter after the request is built, as its bytes go out, fails the
    /// request the same way on each transport, small or large: `.encodingFailed`, which says the
    /// body could not be read and why.
    @Test(arguments: TransportKind.allCases, [200_000, 6 << 20])
    func aFileCutShortAsItIsSentFailsTheSameOnEachTransport(kind: TransportKind, size: Int) async throws {
        struct Truncating: APIClientDelegate {
            let file: URL
            func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
                let handle = try FileHandle(forWritingTo: file)
                try handle.truncate(atOffset: 1_000)
                try handle.close()
                return request
            }
        }
        let (url, _, directory) = try Self.file(size: size)
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) {
                    $0.errorPresenter = nil
                    $0.delegate = Truncating(file: url)
                }
                let error = try await #require(throws: CourierError.self) {
                    try await client.send(Request<JSONValue>(.post, "uploads/sink", body: .multipart([.file("file", url)])))
                }
                #expect(error.kind == .encodingFailed, "\(error)")
                #expect(error.message.contains("could not be read") && error.message.contains("changed while it was being sent"), "\(error.message)")
            }
        }
    }

    /// A file range with a negative offset or length, in the request a hook returns, is refused
    /// with a clear error before anything is sent, on each transport.
    @Test(arguments: TransportKind.allCases)
    func aNegativeFileRangeIsRefusedWhenRead(kind: TransportKind) async throws {
        struct Ranged: APIClientDelegate {
            let segment: StreamedBody.Segment
            func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
                var request = request
                request.body = nil
                request.bodyStream = StreamedBody(segments: [.bytes(Data("head".utf8)), segment], contentType: "application/octet-stream")
                return request
            }
        }
        let (url, _, directory) = try Self.file(size: 10_000)
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                for segment in [StreamedBody.Segment.file(url, from: -1, length: 10), .file(url, from: 0, length: -10)] {
                    let client = server.client(transport) {
                        $0.errorPresenter = nil
                        $0.delegate = Ranged(segment: segment)
                    }
                    let error = try await #require(throws: CourierError.self) {
                        try await client.send(Request<Data>(.post, "uploads/raw", body: .data(Data("x".utf8), contentType: "text/plain")))
                    }
                    #expect(error.kind == .invalidRequest, "\(error)")
                    #expect(error.message.contains("neither may be negative"), "\(error.message)")
                    #expect(server.requestCount("/uploads/raw") == 0)
                    // Read directly (an app's own transport), the range fails rather than reading wrong bytes.
                    #expect(throws: (any Error).self) { try StreamedBody(segments: [segment], contentType: "").collect() }
                }
            }
        }
    }

    @Test func multipartOnlyWhenAValueIsBinary() throws {
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:1")!)
        let plain = try client.transportRequest(for: Request<JSONValue>(.post, "x", body: ["a": 1, "b": ["c": "d"]]))
        #expect(plain.headers["Content-Type"] == "application/json" && plain.bodyStream == nil)
        let withData = try client.transportRequest(for: Request<JSONValue>(.post, "x", body: ["a": 1, "b": .data(Data([1]))]))
        #expect(withData.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(withData.body != nil && withData.bodyStream == nil)  // small and in memory: sent as bytes
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).jpg")
        let error = #expect(throws: CourierError.self) {
            try client.transportRequest(for: Request<JSONValue>(.post, "x", body: ["photo": .file(missing)]))
        }
        #expect(error?.kind == .encodingFailed && error?.message.contains(missing.path) == true)
    }

    @Test(arguments: TransportKind.allCases)
    func uploadProgressIsMonotonicToTheTotal(kind: TransportKind) async throws {
        let (url, _, directory) = try Self.file(size: 2_000_000)
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let reports = Locked<[TransferProgress]>([])
                let upload = Request<JSONValue>(.post, "uploads/sink", body: .multipart([.file("file", url)]))
                    .onUploadProgress { progress in reports.withLock { $0.append(progress) } }
                let total = try client.transportRequest(for: upload).bodyLength
                _ = try await client.send(upload)
                let seen = reports.withLock { $0 }
                #expect(seen.count >= 2)
                #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completed <= $1.completed })
                #expect(seen.last?.completed == total && seen.last?.total == total)
            }
        }
    }

    @Test func cancellingMidUploadLeavesNoTemporaryFiles() async throws {
        let (url, _, directory) = try Self.file(size: 64_000_000)
        defer { directory.remove() }
        func spooled() -> Set<String> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? [])
                .filter { $0.hasPrefix("courier-upload-") })
        }
        let before = spooled()
        try await withServer { server in
            for kind in TransportKind.allCases {
                try await kind.with { transport in
                    let client = server.client(transport)
                    let upload = Request<JSONValue>(.post, "uploads/sink", body: .multipart([.file("file", url)]))
                    let task = client.request(upload) { _ in }
                    await server.waitForRequests("POST", "/uploads/sink", count: kind == .urlSession ? 1 : 2)
                    task.cancel()
                    await task.waitUntilFinished()
                }
            }
        }
        #expect(spooled().subtracting(before).isEmpty)
    }

    @Test(arguments: TransportKind.allCases)
    func aResponseOverTheMaximumFailsClearly(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) { $0.maximumResponseSize = 10_000 }
                let small = try await client.send(Request<Data>(.get, "bytes/10000"))
                #expect(small.data.count == 10_000)
                for path in ["bytes/200000", "bytes/200000?chunked=true"] {
                    let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, path)) }
                    #expect(error?.kind == .responseTooLarge)
                    #expect(error?.message.contains("10000-byte maximum") == true)
                }
                var allowed = Request<Data>(.get, "bytes/200000")
                allowed.maximumResponseSize = 1 << 20
                let larger = try await client.send(allowed)
                #expect(larger.data.count == 200_000)
            }
        }
    }

    /// Streamed uploads (a file part), uploads with progress and downloads to a file give their
    /// connection back to async-http-client's pool: ten of each in a row through a pool of two
    /// connections, then a plain request, all within a short connect timeout. (A streamed body
    /// that ended only after its response had come kept its connection out of async-http-client's
    /// pool now and then: 3 runs in 6 failed here before `UploadPump` ended the body with its last
    /// piece.)
    @Test func streamedExchangesGiveTheirConnectionBack() async throws {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.maximumConnectionsPerHost = 2
        configuration.connectTimeout = .seconds(2)
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("part.bin")
        try Data(repeating: 7, count: 1 << 20).write(to: file)
        try await withServer { server in
            let client = server.client(transport)
            for round in 0..<10 {
                let upload = try await client.send(Request<JSONValue>(.post, "uploads/raw", body: .multipart([.file("file", file)])))
                #expect(upload.value["size"]?.intValue ?? 0 > 1 << 20, "upload \(round)")
                var withProgress = Request<JSONValue>(.post, "uploads/raw", body: .data(Data(repeating: 1, count: 300_000), contentType: "application/octet-stream"))
                withProgress.uploadProgress = { _ in }
                _ = try await client.send(withProgress)
                let target = directory.url.appendingPathComponent("download-\(round).bin")
                _ = try await client.download(Request<Data>(.get, "bytes/200000"), to: target)
            }
            #expect(try await client.send(Request<Data>(.get, "sample")).statusCode == 200)
        }
        try await transport.shutdown()
    }

    /// With nothing set, an in-memory body is bounded (64 MiB), and a download to a file is not
    /// bounded by the client's in-memory limit.
    @Test(arguments: TransportKind.allCases)
    func inMemoryBodiesAreBoundedByDefaultAndDownloadsAreNot(kind: TransportKind) async throws {
        #expect(ClientConfiguration(baseURL: URL(fileURLWithPath: "/")).maximumResponseSize == 64 << 20)
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let size = (64 << 20) + 1
                let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "bytes/\(size)")) }
                #expect(error?.kind == .responseTooLarge, "\(String(describing: error))")
                let limited = server.client(transport) { $0.maximumResponseSize = 1_000 }
                let file = directory.url.appendingPathComponent("download-\(kind).bin")
                let downloaded = try await limited.download(Request<Data>(.get, "bytes/200000"), to: file)
                #expect(try Data(contentsOf: downloaded.value).count == 200_000)
            }
        }
    }

    /// The 200 MB upload runs in a `courier-test-helper upload-probe` process of its own, so no other test's
    /// allocations move its peak memory.
    @Test(arguments: TransportKind.allCases)
    func a200MegabyteUploadFromAFileStaysUnder64MegabytesOfMemory(kind: TransportKind) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let outcome = try await ChildProcess.run(
            helper: ["upload-probe", "--megabytes", "200", "--transport", kind == .urlSession ? "urlsession" : "ahc", "--directory", directory.url.path],
            within: .seconds(600))
        let text = outcome.output
        #expect(outcome.succeeded, "\(outcome)")
        #expect(text.contains("intact=true"), "\(text)")
        let growth = text.split(separator: " ").first { $0.hasPrefix("rss-growth-mb=") }.flatMap { Double($0.dropFirst("rss-growth-mb=".count)) }
        let measured = try #require(growth, "\(text)")
        #expect(measured < 64, "\(text)")
    }
}
