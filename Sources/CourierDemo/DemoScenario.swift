import Courier
import CourierAsyncHTTPClient
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// The narrated tour `courier demo` runs against an in-process server. Each step checks what it
/// shows and throws ``DemoFailure`` when the library does not behave as described.
package struct DemoScenario: Sendable {
    /// The transport the demo's client uses.
    package let transport: DemoTransport
    /// Where the narration goes (standard output by default).
    package let output: @Sendable (String) -> Void

    /// Creates the scenario.
    package init(transport: DemoTransport, output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.transport = transport
        self.output = output
    }

    /// Runs every step; throws ``DemoFailure`` (or the library's error) at the first that misbehaves.
    package func run() async throws {
        let narrator = Narrator(output: output)
        narrator.title("Courier demo")
        let server = try await ImageStoreServer.instrumented()
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
            try await steps.streamEvents()
            try await steps.webSocketEcho()
            try await steps.callbackAndCancel()
            try await steps.signInCallAndLogout()
            try await steps.errors()
            try await steps.imageStoreFlow()
            try await steps.cacheBothAndOffline(transport: httpTransport)
            try await steps.storeImportAndOffline(transport: httpTransport)
            try await steps.outboxWhileServerDown(transport: httpTransport)
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
package struct DemoFailure: Error, CustomStringConvertible {
    /// What went wrong.
    package let description: String
    init(_ description: String) { self.description = description }
}

/// The transports the demo can run on.
package enum DemoTransport: String, CaseIterable, Sendable {
    /// Foundation's URLSession.
    case urlsession
    /// swift-server's async-http-client.
    case ahc
}

/// Throws a ``DemoFailure`` unless `condition` holds.
func demand(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw DemoFailure(message()) }
}

/// The ``CourierError`` that `attempt` must end with; a ``DemoFailure`` saying `unexpected` when
/// it succeeds (any other error is thrown as it is).
func failure(else unexpected: String, _ attempt: () async throws -> Void) async throws -> CourierError {
    do {
        try await attempt()
    } catch let error as CourierError {
        return error
    }
    throw DemoFailure(unexpected)
}

extension Optional {
    /// The value, or a ``DemoFailure`` saying `message`.
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw DemoFailure(message) }
        return self
    }
}

/// Runs `body`, or throws a ``DemoFailure`` saying `message` when it has not ended within `limit`.
func within(_ limit: Duration, _ message: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            try await body()
            return true
        }
        group.addTask {
            try await Task.sleep(for: limit)
            return false
        }
        let finished = try await group.next() ?? false
        group.cancelAll()
        if !finished { throw DemoFailure(message) }
    }
}
