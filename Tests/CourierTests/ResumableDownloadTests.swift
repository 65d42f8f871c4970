import BenchWorkloads
import Crypto
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

@testable import Courier

/// `download(_:to:resuming:sha256:)` against the sample server's `/ranged/{count}` (ranges under
/// `If-Range`, and faults on request: a connection dropped after K bytes, a server that ignores
/// ranges, a wrong `Content-Range`), counting the bytes the server sent.
@Suite struct ResumableDownloadTests {
    static let size = 300_000

    /// The file `/ranged/{size}` serves for `version`.
    static func expected(_ size: Int = size, version: String = "1") -> Data {
        PatternBytes.make(size) { ImageStoreServer.rangedByte($0, version: version) }
    }

    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// Runs `body` with a client whose downloads are kept in a temporary folder, and a destination there.
    func withDownloads(
        _ kind: TransportKind, retries: Int = 1, _ body: (APIClient, ImageStoreServer, URL, TemporaryDirectory) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) {
                    $0.resumableDownloadsDirectory = directory.url.appendingPathComponent("kept")
                    $0.retryPolicy = RetryPolicy(
                        maximumAttempts: retries, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(5), budget: .seconds(600))
                    $0.errorPresenter = nil
                }
                try await body(client, server, directory.url.appendingPathComponent("out/file.bin"), directory)
            }
        }
    }

    func ranged(_ query: String = "") -> Request<Data> {
        Request(.get, "ranged/\(Self.size)" + (query.isEmpty ? "" : "?" + query))
    }

    func sent(_ server: ImageStoreServer) -> Int { server.flakyAttempts("ranged/\(Self.size)/bytes") }

    /// Whether the server sent the file about once: no restart, and no more than `drops` pieces of
    /// at most `piece` bytes sent twice. (A byte the server sent may still never reach the file:
    /// async-http-client drops body parts it holds for a reader when the connection fails.)
    func sentAboutOnce(_ server: ImageStoreServer, drops: Int, piece: Int) -> Bool {
        let sent = sent(server)
        return sent >= Self.size && sent <= Self.size + drops * piece
    }

    /// Five drops under a policy of 3 attempts: each attempt that adds bytes starts the count again.
    @Test(arguments: TransportKind.allCases)
    func aDroppedConnectionResumesUnderTheRetryPolicy(kind: TransportKind) async throws {
        try await withDownloads(kind, retries: 3) { client, server, destination, _ in
            let reports = Locked<[TransferProgress]>([])
            var request = ranged("drop_after=65536")
            request.downloadProgress = { progress in reports.withLock { $0.append(progress) } }
            request.callbackQueue = DispatchQueue(label: "progress")
            let expected = Self.expected()
            let response = try await client.download(request, to: destination, resuming: "drops", sha256: Self.sha256(expected))
            #expect(response.value == destination)
            #expect(try Data(contentsOf: destination) == expected)
            // Five drops, five resumes: every byte sent about once.
            #expect(sentAboutOnce(server, drops: 5, piece: 65536), "\(sent(server))")
            #expect(client.resumableDownloads().isEmpty)
            let all = reports.withLock { $0 }
            #expect(all.last?.completed == Int64(Self.size))
            #expect(all.allSatisfy { $0.total == Int64(Self.size) && $0.completed <= Int64(Self.size) })
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.completed < $1.completed })
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aKeptDownloadResumesLaterAndFromANewURL(kind: TransportKind) async throws {
        try await withDownloads(kind) { client, server, destination, _ in
            await #expect {
                _ = try await client.download(ranged("drop_after=100000&sig=old"), to: destination, resuming: "video-42")
            } throws: { error in
                (error as? CourierError)?.classification == .connectionLost
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let kept = client.resumableDownloads()
            #expect(kept.map(\.identifier) == ["video-42"])
            #expect((1...100_000).contains(kept.first?.bytesOnDisk ?? 0) && kept.first?.totalBytes == Int64(Self.size))
            // The signed URL expired: the same identifier, a new URL, the same file.
            _ = try await client.download(ranged("sig=new"), to: destination, resuming: "video-42")
            #expect(try Data(contentsOf: destination) == Self.expected())
            #expect(sentAboutOnce(server, drops: 1, piece: 100_000), "\(sent(server))")
            #expect(client.resumableDownloads().isEmpty)
        }
    }

    /// A client that opts in resumes every `download(_:to:)`, kept under its destination.
    @Test(arguments: TransportKind.allCases)
    func aClientThatOptsInResumesEveryDownload(kind: TransportKind) async throws {
        try await withDownloads(kind) { _, server, destination, directory in
            try await kind.with { transport in
                let client = server.client(transport) {
                    $0.resumesDownloads = true
                    $0.resumableDownloadsDirectory = directory.url.appendingPathComponent("kept-all")
                    $0.errorPresenter = nil
                }
                _ = try? await client.download(ranged("drop_after=120000"), to: destination)
                #expect(client.resumableDownloads().map(\.destination.path) == [destination.path])
                _ = try await client.download(ranged(), to: destination)
                #expect(try Data(contentsOf: destination) == Self.expected())
                #expect(sentAboutOnce(server, drops: 1, piece: 120_000), "\(sent(server))")
            }
        }
    }

    /// Whatever the server answers to a range that cannot continue the part on disk, the file
    /// ends whole and right: a file that changed, a server that ignores ranges, a wrong
    /// `Content-Range`.
    @Test(arguments: TransportKind.allCases)
    func answersThatCannotContinueTheFileStartOver(kind: TransportKind) async throws {
        try await withDownloads(kind) { client, _, destination, _ in
            for (name, second, version) in [
                ("changed", "version=2", "2"), ("ignored", "ignore_range=true", "1"), ("wrong", "wrong_range=true", "1"),
            ] {
                _ = try? await client.download(ranged("drop_after=50000"), to: destination, resuming: name)
                #expect(client.resumableDownloads().contains { $0.identifier == name && $0.bytesOnDisk <= 50_000 })
                _ = try await client.download(ranged(second), to: destination, resuming: name)
                #expect(try Data(contentsOf: destination) == Self.expected(version: version), "\(name)")
            }
        }
    }

    /// A weak `ETag` never goes into `If-Range`: the resource's old `Last-Modified` does.
    @Test(arguments: TransportKind.allCases)
    func aWeakTagIsNeverTheValidator(kind: TransportKind) async throws {
        try await withDownloads(kind) { client, server, destination, _ in
            _ = try? await client.download(ranged("weak=true&drop_after=70000"), to: destination, resuming: "weak")
            let record = try #require(client.downloadStore.record("weak", scope: client.userScope))
            #expect(record.validator?.hasPrefix("W/") == false && record.validator.flatMap { HTTPDate.parse($0) } != nil)
            _ = try await client.download(ranged("weak=true"), to: destination, resuming: "weak")
            #expect(try Data(contentsOf: destination) == Self.expected())
            #expect(sentAboutOnce(server, drops: 1, piece: 70_000), "\(sent(server))")
        }
    }

    /// A `416` with the whole file on disk finishes the download without a byte sent.
    @Test(arguments: TransportKind.allCases)
    func aWholeFileOnDiskFinishesOnA416(kind: TransportKind) async throws {
        try await withDownloads(kind) { client, server, destination, _ in
            let store = client.downloadStore
            let scope = client.userScope
            try store.save(
                DownloadStore.Record(url: "", destination: destination.path, validator: "\"r\(Self.size)-1\"", total: Int64(Self.size)), "whole",
                scope: scope)
            try Self.expected().write(to: store.partial("whole", scope: scope))
            let response = try await client.download(ranged(), to: destination, resuming: "whole")
            #expect(response.statusCode == 416)
            #expect(try Data(contentsOf: destination) == Self.expected())
            #expect(sent(server) == 0)
        }
    }

    /// Plants a part of `count` zero bytes for `identifier`, as a download of a file of `total`
    /// bytes with `validator` would have kept it.
    func plant(_ client: APIClient, _ identifier: String, destination: URL, validator: String, total: Int, count: Int) throws {
        let store = client.downloadStore
        let record = DownloadStore.Record(url: "", destination: destination.path, validator: validator, total: Int64(total))
        try store.save(record, identifier, scope: client.userScope)
        try Data(count: count).write(to: store.partial(identifier, scope: client.userScope))
    }

    /// The sample server's documented routes continue a part: an image's data and `/bytes`. The
    /// part kept is zeros, so only an answer that sent the rest, not the whole, leaves them in the
    /// file; a part kept under another version's validator starts over.
    @Test(arguments: TransportKind.allCases)
    func theImageDataAndBytesRoutesContinueAPart(kind: TransportKind) async throws {
        try await withDownloads(kind) { client, _, destination, _ in
            let image = ImageStoreTests.png(200_000)
            let created = try await client.send(
                Request<ImageStoreTests.ImageInfo>(.post, "images", body: .multipart([.data("image", image, fileName: "large.png")]))).value
            let data = Request<Data>(.get, "images/\(created.uid)/data")
            let etag = try #require(try await client.send(data).headers["ETag"])
            let bytes = PatternBytes.make(200_000) { UInt8($0 % 251) }
            let routes = [("image", data, image, etag), ("bytes", Request<Data>(.get, "bytes/200000"), bytes, "\"bytes-200000\"")]
            for (name, request, whole, validator) in routes {
                try plant(client, name, destination: destination, validator: validator, total: whole.count, count: 50_000)
                let resumed = try await client.download(request, to: destination, resuming: name)
                #expect(resumed.statusCode == 206)
                #expect(try Data(contentsOf: destination) == Data(count: 50_000) + whole.dropFirst(50_000), "\(name)")
                try plant(client, name, destination: destination, validator: "\"another\"", total: whole.count, count: 50_000)
                let restarted = try await client.download(request, to: destination, resuming: name)
                #expect(restarted.statusCode == 200)
                #expect(try Data(contentsOf: destination) == whole, "\(name): another version")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aWrongChecksumDiscardsTheFile(kind: TransportKind) async throws {
        try await withDownloads(kind) { client, _, destination, _ in
            await #expect {
                _ = try await client.download(ranged(), to: destination, resuming: "sum", sha256: String(repeating: "0", count: 64))
            } throws: { error in
                (error as? CourierError)?.kind == .invalidResponse && (error as? CourierError)?.message.contains("SHA-256") == true
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(client.resumableDownloads().isEmpty)
        }
    }

    /// What a user kept is theirs: listed in their scope only, and erased when they log out.
    @Test func logoutErasesTheUsersKeptDownloads() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            let client = server.client(URLSessionTransport()) {
                $0.authenticationHeaders = AuthenticationTests.names
                $0.credentialStore = CredentialStore.inMemory()
                $0.resumableDownloadsDirectory = directory.url
                $0.errorPresenter = nil
            }
            _ = try? await client.download(ranged("drop_after=20000"), to: directory.url.appendingPathComponent("public.bin"), resuming: "before")
            _ = try await AuthenticationTests.signIn(client)
            _ = try? await client.download(ranged("drop_after=20000"), to: directory.url.appendingPathComponent("user.bin"), resuming: "mine")
            #expect(client.resumableDownloads().map(\.identifier) == ["mine"])
            try client.logout()
            #expect(client.resumableDownloads().map(\.identifier) == ["before"], "signed out: the public scope's")
            #expect(!directory.files.contains { $0.contains("mine") })
        }
    }

    /// A process downloading a slow 4 MiB file is killed at random moments, 50 times; each next
    /// one resumes what the last kept, and the last resume (in this process) ends with the right
    /// file, every byte sent about once (a kill loses at most 128 KiB in flight). The pace (16 KiB every 8 ms) is one a client keeps up with
    /// on a busy machine: what a kill loses is then what the client held, not the megabytes that a
    /// faster server would have queued in the sockets' buffers for a client that fell behind.
    @Test func aDownloadSurvivesItsProcessKilledFiftyTimes() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let size = 4 << 20
        try await withServer { server in
            let url = server.baseURL.absoluteString + "/ranged/\(size)?pace_ms=8"
            let kept = directory.url.appendingPathComponent("kept")
            let destination = directory.url.appendingPathComponent("file.bin")
            var kills = 0
            for _ in 0..<50 {
                let arguments = ["download-writer", "--url", url, "--directory", kept.path, "--destination", destination.path]
                if try await killWriter(arguments, within: .milliseconds(40)) { kills += 1 }
                if FileManager.default.fileExists(atPath: destination.path) { break }
            }
            let client = server.client(URLSessionTransport()) {
                $0.resumableDownloadsDirectory = kept
                $0.errorPresenter = nil
            }
            let expected = Self.expected(size)
            _ = try await client.download(Request<Data>(.get, url), to: destination, resuming: "crash", sha256: Self.sha256(expected))
            #expect(try Data(contentsOf: destination) == expected)
            #expect(kills >= 10, "the downloads were killed part way")
            let sent = server.flakyAttempts("ranged/\(size)/bytes")
            // About 100 KiB a kill were seen with the whole suite running beside it on 2 cores.
            #expect(sent <= size + kills * 128 * 1024, "\(sent) bytes sent for \(size)")
            print("download killed \(kills) times; \(sent) bytes sent for a \(size)-byte file")
        }
    }

    /// One download of an identifier at a time: a second one while the first runs is refused.
    @Test func aSecondDownloadOfTheSameIdentifierIsRefusedWhileTheFirstRuns() async throws {
        try await withDownloads(.asyncHTTPClient) { client, server, destination, _ in
            let key = "resumable-\(UUID().uuidString)"
            let ended = Locked(false)
            let first = Task {
                defer { ended.withLock { $0 = true } }
                return try await client.download(Request<Data>(.get, "hold/\(key)?size=1000"), to: destination, resuming: "once")
            }
            // The first is running once the server holds its request (or it ended: it failed).
            while server.requestCount("GET", "/hold/{key}") == 0, !ended.withLock({ $0 }) { await Task.yield() }
            await #expect {
                _ = try await client.download(Request<Data>(.get, "hold/\(key)?size=1000"), to: destination, resuming: "once")
            } throws: { error in
                (error as? CourierError)?.kind == .invalidRequest && (error as? CourierError)?.message.contains("already running") == true
            }
            server.release(key)
            _ = try await first.value
            #expect(try Data(contentsOf: destination).count == 1000)
        }
    }

    @Test func badInputIsRefusedBeforeAnythingIsSent() async throws {
        try await withDownloads(.urlSession) { client, server, destination, _ in
            let cases: [(String, URL, String?)] = [
                ("../escape", destination, nil), ("", destination, nil), (".hidden", destination, nil),
                ("ok", URL(string: "https://example.com/file")!, nil), ("ok", destination, "xyz"),
                ("ok", destination, String(repeating: "g", count: 64)),
            ]
            for (identifier, target, sum) in cases {
                await #expect {
                    _ = try await client.download(ranged(), to: target, resuming: identifier, sha256: sum)
                } throws: { error in
                    (error as? CourierError)?.kind == .invalidRequest
                }
            }
            #expect(server.requestCount("GET", "/ranged/{count}") == 0)
        }
    }
}
