import BenchWorkloads
import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Replays behave like the transport they stand in for: progress, downloads to a file, the size
/// limit, revalidation (304) and redirects as recorded.
@Suite struct CassetteReplayTests {
    static func client(_ baseURL: URL, _ transport: any HTTPTransport, cache: ResponseCache? = nil) -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = cache
        return APIClient(configuration: configuration, transport: transport)
    }

    @Test(arguments: TransportKind.allCases)
    func progressDownloadsAndUploadsReplayAsRecorded(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("transfers.har")
        let size = 300_000
        let upload = PatternBytes.make(200_000) { UInt8(truncatingIfNeeded: $0 &* 7) }
        func transfers(_ client: APIClient, _ destination: URL) async throws -> (downloads: [TransferProgress], uploads: [TransferProgress]) {
            let downloads = Locked<[TransferProgress]>([])
            let uploads = Locked<[TransferProgress]>([])
            let downloaded = try await client.download(
                Request<Data>(.get, "bytes/\(size)").onDownloadProgress { progress in downloads.withLock { $0.append(progress) } }, to: destination)
            #expect(downloaded.value == destination)
            let sent = Request<Data>(.post, "uploads/raw", body: .data(upload, contentType: "application/octet-stream"))
                .onUploadProgress { progress in uploads.withLock { $0.append(progress) } }
            _ = try await client.send(sent)
            return (downloads.withLock { $0 }, uploads.withLock { $0 })
        }
        try await kind.with { transport in
            let baseURL = try await withServer { server in
                let cassette = try Cassette(file: file)
                _ = try await transfers(Self.client(server.baseURL, RecordingTransport(wrapping: transport, cassette: cassette)), directory.url.appendingPathComponent("live.bin"))
                return server.baseURL
            }
            let cassette = try Cassette(file: file, mode: .none)
            let destination = directory.url.appendingPathComponent("replayed.bin")
            let (downloads, uploads) = try await transfers(Self.client(baseURL, ReplayTransport(cassette: cassette)), destination)
            #expect(try Data(contentsOf: destination) == Data(contentsOf: directory.url.appendingPathComponent("live.bin")))
            #expect(try Data(contentsOf: destination).count == size)
            #expect(downloads.count > 1 && downloads.last == TransferProgress(completed: Int64(size), total: Int64(size)))
            #expect(downloads.map(\.completed) == downloads.map(\.completed).sorted())
            #expect(uploads.count > 1 && uploads.last == TransferProgress(completed: Int64(upload.count), total: Int64(upload.count)))
        }
    }

    @Test func theSizeLimitHoldsOnReplay() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("large.har")
        let baseURL = try await withServer { server in
            let cassette = try Cassette(file: file)
            _ = try await Self.client(server.baseURL, RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette)).send(Request<Data>(.get, "bytes/3000"))
            return server.baseURL
        }
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        configuration.maximumResponseSize = 1000
        let client = APIClient(configuration: configuration, transport: ReplayTransport(cassette: try Cassette(file: file)))
        let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "bytes/3000")) }
        #expect(error?.kind == .responseTooLarge)
    }

    @Test func revalidationAndRedirectsReplayAsRecorded() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("revalidation.har")
        let sample = Request<JSONValue>(.get, "sample", cache: .both)
        let moved = Request<JSONValue>(.get, "redirect", query: ["to": "/sample", "status": 301])
        var live: [JSONValue] = []
        let baseURL = try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = Self.client(server.baseURL, RecordingTransport(wrapping: URLSessionTransport(), cassette: try Cassette(file: file)), cache: cache)
                live.append(try await client.send(sample).value)
                live.append(try await client.send(sample).value)
                live.append(try await client.send(moved).value)
                #expect(server.notModifiedCount("GET", "/sample") == 1, "the second GET was revalidated")
                return server.baseURL
            }
        }
        let cassette = try Cassette(file: file, mode: .none)
        #expect(cassette.entryCount == 4)
        try await withTemporaryCache { cache, _ in
            let client = Self.client(baseURL, ReplayTransport(cassette: cassette), cache: cache)
            let first = try await client.send(sample)
            let second = try await client.send(sample)
            let third = try await client.send(moved)
            #expect([first.value, second.value, third.value] == live)
            #expect(second.statusCode == 200)
            #expect(third.url.path == "/sample")
            #expect(cassette.unusedEntryCount == 0)
        }
    }
}
