import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// Sends a file of ``FuzzCase``s through Courier's public API: on async-http-client or URLSession
/// to an in-process sample server, or on `StubTransport`. Run in a process of its own
/// (`courier-test-helper fuzz-probe`), so a crash ends that process and fails one test; before each case it
/// prints `case=<index>` (so a crash names its case), after it `result=<outcome> <message>`.
package enum FuzzProbe {
    /// What the cases got, by outcome (`success`, or the error's kind).
    package struct Summary: Sendable, CustomStringConvertible {
        /// Cases sent.
        package var cases = 0
        /// Outcome → count.
        package var outcomes: [String: Int] = [:]

        /// `cases=N outcomes=invalidRequest:3,success:5,…`.
        package var description: String {
            "cases=\(cases) outcomes=" + outcomes.keys.sorted().map { "\($0):\(outcomes[$0] ?? 0)" }.joined(separator: ",")
        }
    }

    /// Sends every case in `file` through `transport` (`ahc`, `urlsession` or `stub`).
    package static func run(cases file: URL, transport name: String, output: @Sendable (String) -> Void) async throws -> Summary {
        let cases = try JSONDecoder().decode([FuzzCase].self, from: Data(contentsOf: file))
        let server = try await ImageStoreServer.instrumented()
        let ahc = AsyncHTTPClientTransport()
        let transport: any HTTPTransport
        switch name {
        case "ahc": transport = ahc
        case "urlsession": transport = URLSessionTransport()
        default:
            let stub = StubTransport()
            stub.stub(nil, "/echo", status: 200, json: "{}")
            transport = stub
        }
        var summary = Summary()
        for (index, fuzzCase) in cases.enumerated() {
            output("case=\(index)")
            var configuration = ClientConfiguration(baseURL: server.baseURL, apiPath: fuzzCase.apiPath ?? "echo")
            configuration.cache = nil
            configuration.errorPresenter = nil
            configuration.logger.logLevel = .critical
            fuzzCase.configure(&configuration)
            let client = APIClient(configuration: configuration, transport: transport)
            let outcome: String
            do {
                _ = try await client.send(fuzzCase.request)
                outcome = "success"
                output("result=success")
            } catch {
                outcome = "\(error.kind.name)"
                output("result=\(outcome) \(error.message.replacingOccurrences(of: "\n", with: " ").prefix(300))")
            }
            summary.cases += 1
            summary.outcomes[outcome, default: 0] += 1
        }
        await server.stop()
        try? await ahc.shutdown()
        return summary
    }
}
