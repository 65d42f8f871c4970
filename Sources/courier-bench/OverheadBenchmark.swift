import Courier
import Foundation

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
        let request = Request<TransportBenchmark.Sample>(.get, "sample")
        let count = options.scaled(20_000)
        let clock = ContinuousClock()
        var differences: [Double] = []
        var courierTotal = 0.0
        var rawTotal = 0.0
        for _ in 0..<options.rounds {
            let courier = try await clock.measure {
                for _ in 0..<count { _ = try await client.send(request) }
            }.seconds
            let raw = try clock.measure {
                for _ in 0..<count { _ = try decoder.decode(TransportBenchmark.Sample.self, from: body) }
            }.seconds
            differences.append((courier - raw) / Double(count) * 1e9)
            courierTotal += courier
            rawTotal += raw
        }
        differences.sort()
        let median = differences[differences.count / 2]
        let requests = Double(count * options.rounds)
        print("overhead.request ns=\(Int(median)) courier=\(Int(courierTotal / requests * 1e9))ns decode-only=\(Int(rawTotal / requests * 1e9))ns")
    }
}
