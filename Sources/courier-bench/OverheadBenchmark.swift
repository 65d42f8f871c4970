import BenchWorkloads
import CoreMetrics
import Courier
import Foundation
import Tracing

/// `courier-bench overhead`: the time Courier itself adds to a request, measured with a transport
/// that answers at once (no network), against decoding the same bytes directly; the median over
/// alternating rounds.
struct OverheadBenchmark {
    let options: BenchOptions

    struct InstantTransport: HTTPTransport {
        let body: Data
        func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
            TransportResponse(url: request.url, statusCode: 200, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    func run() async throws {
        let body = Data(#"{"id":"123","user_name":"fulana22k","email":"f@example.com","is_first_login":true}"#.utf8)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:8080")!)
        configuration.decoder = decoder
        let client = APIClient(configuration: configuration, transport: InstantTransport(body: body))
        // The same client with metrics and tracing given no-op backends: every hook runs, nothing is kept.
        configuration.metricsFactory = NOOPMetricsHandler.instance
        configuration.tracer = NoOpTracer()
        let observed = APIClient(configuration: configuration, transport: InstantTransport(body: body))
        // And without in-flight sharing, to show what it costs a request that nobody joins.
        configuration.metricsFactory = nil
        configuration.tracer = nil
        configuration.deduplicatesRequests = false
        let unshared = APIClient(configuration: configuration, transport: InstantTransport(body: body))
        let request = Request<SmallGet.Sample>(.get, "sample")
        let count = options.scaled(20_000)
        let clock = ContinuousClock()
        var differences: [Double] = []
        var observability: [Double] = []
        var sharing: [Double] = []
        var courierTotal = 0.0
        var rawTotal = 0.0
        for round in 0..<options.rounds {
            func courier(_ client: APIClient) async throws -> Double {
                try await clock.measure {
                    for _ in 0..<count { _ = try await client.send(request) }
                }.seconds
            }
            let plain: Double
            let traced: Double
            let alone: Double
            if round.isMultiple(of: 2) {
                plain = try await courier(client)
                traced = try await courier(observed)
                alone = try await courier(unshared)
            } else {
                alone = try await courier(unshared)
                traced = try await courier(observed)
                plain = try await courier(client)
            }
            let raw = try clock.measure {
                for _ in 0..<count { _ = try decoder.decode(SmallGet.Sample.self, from: body) }
            }.seconds
            differences.append((plain - raw) / Double(count) * 1e9)
            observability.append((traced - plain) / Double(count) * 1e9)
            sharing.append((plain - alone) / Double(count) * 1e9)
            courierTotal += plain
            rawTotal += raw
        }
        differences.sort()
        observability.sort()
        sharing.sort()
        let median = differences[differences.count / 2]
        let requests = Double(count * options.rounds)
        print("overhead.request ns=\(Int(median)) courier=\(Int(courierTotal / requests * 1e9))ns decode-only=\(Int(rawTotal / requests * 1e9))ns")
        print("overhead.sharing ns=\(Int(sharing[sharing.count / 2])) (in-flight sharing on, nobody joining, against off)")
        print("overhead.observability ns=\(Int(observability[observability.count / 2])) (metrics and tracing on no-op backends, against neither)")
    }
}
