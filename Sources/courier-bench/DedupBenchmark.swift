import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// `courier-bench dedup`: 100 concurrent identical GETs of `/sample` with in-flight sharing
/// against the same 100 with sharing off, on each transport; the ratio is batches per second
/// shared / unshared (median of alternating rounds).
struct DedupBenchmark {
    let options: BenchOptions

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        var ahcConfiguration = AsyncHTTPClientTransport.Configuration()
        ahcConfiguration.maximumConnectionsPerHost = 32
        let ahc = AsyncHTTPClientTransport(configuration: ahcConfiguration)
        let transports: [(String, any HTTPTransport)] = [("ahc", ahc), ("urlsession", URLSessionTransport())]
        for (name, transport) in transports {
            let label = "dedup.concurrent100.\(name)"
            guard options.selects(label) else { continue }
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.cache = nil
            let shared = APIClient(configuration: configuration, transport: transport)
            configuration.deduplicatesRequests = false
            let unshared = APIClient(configuration: configuration, transport: transport)
            let pair = PairedMeasurement(name: label, count: options.scaled(20, minimum: 4), concurrency: 1, rounds: options.rounds)
            let result = try await pair.run(courier: { try await Self.batch(shared) }, raw: { try await Self.batch(unshared) })
            print("\(label) ratio=\(String(format: "%.2f", result.ratio)) shared=\(String(format: "%.2f", 1000 / result.courier))ms unshared=\(String(format: "%.2f", 1000 / result.raw))ms per 100 GETs")
        }
        try await ahc.shutdown()
        await server.stop()
    }

    /// 100 identical GETs at once.
    static func batch(_ client: APIClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let sample = try await client.send(Request<SmallGet.Sample>(.get, "sample")).value
                    guard sample.id == "123" else { throw BenchError("dedup: wrong sample") }
                }
            }
            try await group.waitForAll()
        }
    }
}
