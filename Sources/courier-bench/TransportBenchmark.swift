import AsyncHTTPClient
import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// `courier-bench transport`: Courier on each transport against the same transport's raw API, small
/// JSON and 1 MiB GETs, at concurrency 1 and 32, and small GETs at 256 on async-http-client (a
/// service's fan-out); throughput ratio and latency percentiles. `transport.ahc.small.c1.own-clients`
/// repeats the small c1 line with each side on a client of its own.
struct TransportBenchmark {
    let options: BenchOptions

    struct Workload {
        let name: String
        let path: String
        let counts: [Int: Int]
        let expectedBytes: Int?
    }

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        defer { Task { await server.stop() } }
        let small = Workload(
            name: "small", path: "sample", counts: [1: options.scaled(600), 32: options.scaled(2000), 256: options.scaled(4000)],
            expectedBytes: nil)
        let workloads = [
            small,
            Workload(name: "1mb", path: "bytes/1048576", counts: [1: options.scaled(60), 32: options.scaled(120)], expectedBytes: 1_048_576),
        ]
        var ahcConfiguration = AsyncHTTPClientTransport.Configuration()
        ahcConfiguration.maximumConnectionsPerHost = 32
        let ahc = AsyncHTTPClientTransport(configuration: ahcConfiguration)
        let session = URLSessionTransport()
        let rawSession = SmallGet.rawSession()
        for workload in workloads {
            for concurrency in [1, 32, 256] {
                guard let count = workload.counts[concurrency] else { continue }
                let base = server.baseURL
                try await measure(
                    "transport.ahc.\(workload.name).c\(concurrency)", count, concurrency,
                    courier: SmallGet.courier(try SmallGet.client(base, ahc), path: workload.path, expectedBytes: workload.expectedBytes),
                    raw: SmallGet.rawAHC(ahc.client, baseURL: base, path: workload.path, expectedBytes: workload.expectedBytes))
                // The fan-out line is async-http-client's, the transport servers use.
                guard concurrency < 256 else { continue }
                try await measure(
                    "transport.urlsession.\(workload.name).c\(concurrency)", count, concurrency,
                    courier: SmallGet.courier(try SmallGet.client(base, session), path: workload.path, expectedBytes: workload.expectedBytes),
                    raw: SmallGet.rawURLSession(rawSession, baseURL: base, path: workload.path, expectedBytes: workload.expectedBytes))
            }
        }
        // The same c1 line with each side on a new HTTPClient of its own: on a shared one, the side
        // that warms up first opens the one connection, and its event loop decides whether every
        // callback of Courier's delegate hops to another loop (see `LoopChoice`). This line shows
        // a client that only Courier sends through; the line above stays the measure.
        if options.selects("transport.ahc.small.c1.own-clients"), let count = small.counts[1] {
            let courierOwn = AsyncHTTPClientTransport(configuration: ahcConfiguration)
            let rawOwn = AsyncHTTPClientTransport(configuration: ahcConfiguration)
            let base = server.baseURL
            try await measure(
                "transport.ahc.small.c1.own-clients", count, 1,
                courier: SmallGet.courier(try SmallGet.client(base, courierOwn), path: small.path, expectedBytes: small.expectedBytes),
                raw: SmallGet.rawAHC(rawOwn.client, baseURL: base, path: small.path, expectedBytes: small.expectedBytes))
            try await courierOwn.shutdown()
            try await rawOwn.shutdown()
        }
        try await ahc.shutdown()
        await server.stop()
    }

    private func measure(
        _ name: String, _ count: Int, _ concurrency: Int,
        courier: @escaping @Sendable () async throws -> Void, raw: @escaping @Sendable () async throws -> Void
    ) async throws {
        guard options.selects(name) else { return }
        let pair = PairedMeasurement(name: name, count: count, concurrency: concurrency, rounds: options.rounds)
        PairedMeasurement.report(name, try await pair.run(courier: courier, raw: raw))
    }
}
