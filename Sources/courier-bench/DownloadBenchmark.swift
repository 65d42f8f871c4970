import AsyncHTTPClient
import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import NIOCore

/// `courier-bench download`: a 256 MiB resumable download through Courier (async-http-client
/// transport) whose connection the server drops every 16 MiB, resumed under a retry policy,
/// against raw async-http-client downloading the same file to disk without a drop; the bytes the
/// server sent for Courier's download; Courier's peak memory growth.
struct DownloadBenchmark {
    let options: BenchOptions

    func run() async throws {
        let directory = try scratchDirectory("download")
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = options.scaled(256, minimum: 16) << 20
        let dropEvery = 16 << 20
        let server = try await ImageStoreServer.instrumented()
        let transport = AsyncHTTPClientTransport()
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.timeout = 3_600
        configuration.errorPresenter = nil
        configuration.resumableDownloadsDirectory = directory.appendingPathComponent("kept")
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 1_000, baseDelay: .milliseconds(1), maximumDelay: .milliseconds(1), budget: .seconds(3_600))
        let client = APIClient(configuration: configuration, transport: transport)
        let destination = directory.appendingPathComponent("courier.bin")
        let courier: @Sendable () async throws -> Void = {
            _ = try await client.download(
                Request<Data>(.get, "ranged/\(size)?drop_after=\(dropEvery)"), to: destination, resuming: "bench")
            let length = (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.intValue
            guard length == size else { throw BenchError("courier download is \(length ?? -1) bytes, not \(size)") }
        }
        let rawFile = directory.appendingPathComponent("raw.bin")
        let raw: @Sendable () async throws -> Void = {
            let response = try await transport.client.execute(HTTPClientRequest(url: server.baseURL.absoluteString + "/ranged/\(size)"), timeout: .hours(1))
            guard response.status == .ok else { throw BenchError("raw download: \(response.status)") }
            guard FileManager.default.createFile(atPath: rawFile.path, contents: nil) else { throw BenchError("cannot create \(rawFile.path)") }
            let handle = try FileHandle(forWritingTo: rawFile)
            defer { try? handle.close() }
            var received = 0
            for try await buffer in response.body {
                try handle.write(contentsOf: buffer.readableBytesView)
                received += buffer.readableBytes
            }
            guard received == size else { throw BenchError("raw download is \(received) bytes, not \(size)") }
        }
        if options.selects("download.resume") {
            try await PairedMeasurement.transfer(
                "download.resume", size: Int64(size), rounds: options.rounds, most: 4, extra: " drop_every=\(dropEvery)", courier: courier, raw: raw)
        }
        if options.selects("download.bytes-sent") {
            let before = server.flakyAttempts("ranged/\(size)/bytes")
            try await courier()
            let sent = server.flakyAttempts("ranged/\(size)/bytes") - before
            print("download.bytes-sent ratio=\(String(format: "%.3f", Double(sent) / Double(size))) sent=\(sent) size=\(size)")
        }
        if options.selects("download.rss-growth") {
            try await reportGrowth("download.rss-growth", size: size, of: courier)
        }
        try await transport.shutdown()
        await server.stop()
    }
}
