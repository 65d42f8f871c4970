import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier-bench transport`: Courier on each transport against the same transport's raw API, small
/// JSON and 1 MiB GETs, at concurrency 1 and 32.
struct TransportBenchmark {
    let options: BenchOptions

    /// The `/sample` document, decoded the same way on both sides.
    struct Sample: Decodable, Sendable {
        var id: String
        var userName: String
        var email: String
        var isFirstLogin: Bool
    }

    struct Workload {
        let name: String
        let path: String
        let counts: [Int: Int]
        let expectedBytes: Int?
    }

    func run() async throws {
        let server = try await ImageStoreServer.start()
        defer { Task { await server.stop() } }
        let workloads = [
            Workload(name: "small", path: "sample", counts: [1: options.scaled(600), 32: options.scaled(2000)], expectedBytes: nil),
            Workload(name: "1mb", path: "bytes/1048576", counts: [1: options.scaled(60), 32: options.scaled(120)], expectedBytes: 1_048_576),
        ]
        var ahcConfiguration = AsyncHTTPClientTransport.Configuration()
        ahcConfiguration.maximumConnectionsPerHost = 32
        let ahc = AsyncHTTPClientTransport(configuration: ahcConfiguration)
        let session = URLSessionTransport()
        let rawSession = URLSession(configuration: Self.sessionConfiguration())
        for workload in workloads {
            for concurrency in [1, 32] {
                let count = workload.counts[concurrency]!
                try await measure("transport.ahc.\(workload.name).c\(concurrency)", workload, count, concurrency,
                                  client: Self.client(server, ahc), raw: rawAHC(ahc.client, server, workload))
                try await measure("transport.urlsession.\(workload.name).c\(concurrency)", workload, count, concurrency,
                                  client: Self.client(server, session), raw: rawURLSession(rawSession, server, workload))
            }
        }
        try await ahc.shutdown()
        await server.stop()
    }

    private func measure(
        _ name: String, _ workload: Workload, _ count: Int, _ concurrency: Int,
        client: APIClient, raw: @escaping @Sendable () async throws -> Void
    ) async throws {
        guard options.selects(name) else { return }
        let courier: @Sendable () async throws -> Void
        // Every request has a URL of its own (`?n=…`, on both sides), so no two are identical and
        // in-flight sharing never replaces a request: this measures the cost of each one.
        let numbers = Ticket()
        if let expected = workload.expectedBytes {
            courier = {
                let response = try await client.send(Request<Data>(.get, workload.path, query: ["n": .int(numbers.take())]))
                guard response.value.count == expected else { throw BenchError("\(name): \(response.value.count) bytes") }
            }
        } else {
            courier = {
                let sample = try await client.send(Request<Sample>(.get, workload.path, query: ["n": .int(numbers.take())])).value
                guard sample.id == "123" else { throw BenchError("\(name): wrong sample") }
            }
        }
        let pair = PairedMeasurement(name: name, count: count, concurrency: concurrency, rounds: options.rounds)
        PairedMeasurement.report(name, try await pair.run(courier: courier, raw: raw))
    }

    private static func client(_ server: ImageStoreServer, _ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.decoder = decoder()
        // COURIER_BENCH_SHARING=off measures the path without in-flight sharing.
        configuration.deduplicatesRequests = ProcessInfo.processInfo.environment["COURIER_BENCH_SHARING"] != "off"
        return APIClient(configuration: configuration, transport: transport)
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    private static func sessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// `HTTPClient.execute` and `collect`, then the same decoding or size check.
    private func rawAHC(_ client: HTTPClient, _ server: ImageStoreServer, _ workload: Workload) -> @Sendable () async throws -> Void {
        let url = server.baseURL.absoluteString + "/" + workload.path
        let expected = workload.expectedBytes
        let decoder = Self.decoder()
        let numbers = Ticket()
        return {
            let response = try await client.execute(HTTPClientRequest(url: url + "?n=\(numbers.take())"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
            guard response.status == .ok else { throw BenchError("raw ahc: \(response.status)") }
            if let expected {
                guard body.readableBytes == expected else { throw BenchError("raw ahc: \(body.readableBytes) bytes") }
            } else {
                let sample = try decoder.decode(Sample.self, from: Data(buffer: body))
                guard sample.id == "123" else { throw BenchError("raw ahc: wrong sample") }
            }
        }
    }

    /// `URLSession.data(for:)`, then the same decoding or size check.
    private func rawURLSession(_ session: URLSession, _ server: ImageStoreServer, _ workload: Workload) -> @Sendable () async throws -> Void {
        let url = server.baseURL.appendingPathComponent(workload.path).absoluteString
        let expected = workload.expectedBytes
        let decoder = Self.decoder()
        let numbers = Ticket()
        return {
            guard let numbered = URL(string: url + "?n=\(numbers.take())") else { throw BenchError("raw urlsession: bad URL") }
            let (data, response) = try await session.data(for: URLRequest(url: numbered))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError("raw urlsession: bad status") }
            if let expected {
                guard data.count == expected else { throw BenchError("raw urlsession: \(data.count) bytes") }
            } else {
                let sample = try decoder.decode(Sample.self, from: data)
                guard sample.id == "123" else { throw BenchError("raw urlsession: wrong sample") }
            }
        }
    }
}
