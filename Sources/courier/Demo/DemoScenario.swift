import Courier
import CourierAsyncHTTPClient
import Dispatch
import Foundation
import ImageStoreServer
import Synchronization

/// The narrated tour `courier demo` runs against an in-process server. Each step checks what it
/// shows and throws ``DemoFailure`` when the library does not behave as described.
struct DemoScenario {
    let transport: DemoTransport

    func run() async throws {
        let narrator = Narrator()
        narrator.title("Courier demo")
        let server = try await ImageStoreServer.start()
        narrator.say("Sample server started in-process at \(server.baseURL.absoluteString) (SQLite: \(server.databasePath)).")
        let (httpTransport, shutdown) = makeTransport()
        do {
            var configuration = ClientConfiguration(baseURL: server.baseURL, defaultHeaders: ["Accept": "application/json"])
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            configuration.decoder = decoder
            let client = APIClient(configuration: configuration, transport: httpTransport)
            narrator.say("Client on \(transport == .ahc ? "async-http-client" : "URLSession"), base URL \(server.baseURL.absoluteString).")
            let steps = DemoSteps(client: client, server: server, narrator: narrator)
            try await steps.decodeModel()
            try await steps.bodyAndQuery()
            try await steps.groupInjection()
            try await steps.downloadWithProgress()
            try await steps.callbackAndCancel()
            try await steps.errors()
            await shutdown()
            await server.stop()
            narrator.title("Done: every step behaved as described.")
        } catch {
            await shutdown()
            await server.stop()
            throw error
        }
    }

    private func makeTransport() -> (any HTTPTransport, @Sendable () async -> Void) {
        switch transport {
        case .urlsession:
            return (URLSessionTransport(), {})
        case .ahc:
            let ahc = AsyncHTTPClientTransport()
            return (ahc, { try? await ahc.shutdown() })
        }
    }
}

/// A step of the demo that did not behave as it should.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Throws a ``DemoFailure`` unless `condition` holds.
func demand(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw DemoFailure(message()) }
}
