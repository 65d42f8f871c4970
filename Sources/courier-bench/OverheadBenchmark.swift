import Courier
import Foundation

/// `courier-bench overhead`: the time Courier itself adds to a request, measured with a transport
/// that answers at once (no network), against decoding the same bytes directly.
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
        let count = options.scaled(200_000)
        let clock = ContinuousClock()
        for _ in 0..<3 {
            let courier = try await clock.measure {
                for _ in 0..<count { _ = try await client.send(request) }
            }
            let raw = try clock.measure {
                for _ in 0..<count { _ = try decoder.decode(TransportBenchmark.Sample.self, from: body) }
            }
            let perRequest = (courier - raw).seconds / Double(count) * 1e9
            print("overhead.request ns=\(Int(perRequest)) courier=\(Int(courier.seconds / Double(count) * 1e9))ns decode-only=\(Int(raw.seconds / Double(count) * 1e9))ns")
        }
    }
}
