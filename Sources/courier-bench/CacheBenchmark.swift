import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// `courier-bench cache`: a cached GET from memory and from disk against the same GET over the
/// network (`/sample` through Courier on async-http-client, in-process server, concurrency 1), and the time from opening a cache of 10,000
/// entries (100 MB) to its first hit.
struct CacheBenchmark {
    let options: BenchOptions

    func run() async throws {
        let root = try scratchDirectory("cache")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await ImageStoreServer.instrumented()
        let transport = AsyncHTTPClientTransport()
        let memoryCache = ResponseCache(directory: root.appendingPathComponent("memory"))
        let diskCache = ResponseCache(directory: root.appendingPathComponent("disk"), memoryCapacity: 0)
        await memoryCache.loaded()
        await diskCache.loaded()
        let inMemory = client(server, transport, memoryCache)
        let onDisk = client(server, transport, diskCache)
        // `/sample`: the server's cheapest GET (a fixed ~300-byte JSON document), so the network
        // baseline is as fast as this server gets.
        let cached = Request<Data>(.get, "sample", cache: .cacheOnly)
        let network = Request<Data>(.get, "sample", cache: .networkOnly)
        _ = try await inMemory.send(cached)
        _ = try await onDisk.send(cached)
        guard try await inMemory.send(cached).source == .cache, try await onDisk.send(cached).source == .cache,
              memoryCache.memoryUsage > 0, diskCache.memoryUsage == 0
        else { throw BenchError("the cached GET did not come from the cache") }
        let count = options.scaled(2_000)
        for (name, client) in [("cache.memory", inMemory), ("cache.disk", onDisk)] where options.selects(name) {
            let result = try await PairedMeasurement(name: name, count: count, concurrency: 1, rounds: options.rounds).run(
                courier: { _ = try await client.send(cached) }, raw: { _ = try await client.send(network) })
            PairedMeasurement.report(name, result)
        }
        if options.selects("cache.memory-hit") {
            // Courier's own time per memory hit, the whole `send` (key, lookup, decode).
            let hits = options.scaled(200_000, minimum: 1_000)
            let elapsed = try await ContinuousClock().measure { for _ in 0..<hits { _ = try await inMemory.send(cached) } }
            print("cache.memory-hit ns=\(elapsed.nanoseconds / Int64(hits))")
        }
        try await transport.shutdown()
        await server.stop()
        if options.selects("cache.coldstart") { try coldStart(root.appendingPathComponent("cold")) }
    }

    func client(_ server: ImageStoreServer, _ transport: AsyncHTTPClientTransport, _ cache: ResponseCache) -> APIClient {
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = cache
        return APIClient(configuration: configuration, transport: transport)
    }

    /// Fills a directory with 10,000 entries of 10 KB, then opens it five times and times the first
    /// hit after opening (median). The files are in the page cache, as after a recent run.
    func coldStart(_ directory: URL) throws {
        let entries = options.scaled(10_000, minimum: 100)
        let writer = ResponseCache(directory: directory, memoryCapacity: 0, diskCapacity: 1 << 30)
        func key(_ index: Int) -> CacheKey {
            CacheKey(digest: String(format: "%064x", index), scope: "public", pathDigest: String(format: "%016x", index % 97))
        }
        for index in 0..<entries {
            let response = CachedResponse(
                statusCode: 200, headers: ["Content-Type": "application/json"],
                body: Data(repeating: UInt8(index % 251), count: 10_000), url: URL(string: "http://127.0.0.1/items/\(index)")!)
            writer.store(response, for: key(index))
            if index % 10 == 0 { _ = writer.response(for: key(index)) }
        }
        writer.flush()
        var times: [Double] = []
        for round in 0..<5 {
            let target = key((round * 7_919) % entries)
            let start = ContinuousClock.now
            let cache = ResponseCache(directory: directory)
            guard let hit = cache.response(for: target), hit.body.count == 10_000 else { throw BenchError("cold start missed") }
            times.append((ContinuousClock.now - start).seconds * 1_000)
        }
        times.sort()
        print("cache.coldstart ms=\(String(format: "%.2f", times[2])) entries=\(entries) bytes=\(entries * 10_000)")
    }
}
