import BenchWorkloads
import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// Runs `body` against a fresh in-process server on 127.0.0.1 (port 0, temporary SQLite file),
/// stopping it afterwards whatever happens, once the test is admitted (``TestAdmission``).
func withServer<Value>(
    _ configuration: ServerConfiguration = ServerConfiguration(), _ body: (ImageStoreServer) async throws -> Value
) async throws -> Value {
    // The helper as the testing article shows it, run inside the admission.
    func withServer<T>(
        _ configuration: ServerConfiguration = ServerConfiguration(), _ body: (ImageStoreServer) async throws -> T
    ) async throws -> T {
        let server = try await ImageStoreServer.instrumented(configuration)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
    return try await TestAdmission.shared.admitted { try await withServer(configuration, body) }
}

extension ImageStoreServer {
    /// A client for this server on `transport`.
    func client(_ transport: any HTTPTransport, apiPath: String = "", configure: (inout ClientConfiguration) -> Void = { _ in }) -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL, apiPath: apiPath)
        configuration.cache = nil  // tests that cache give the client a temporary cache of their own
        configure(&configuration)
        let client = APIClient(configuration: configuration, transport: transport)
        client.inFlight.startProbing()
        return client
    }
}

extension ServerConfiguration {
    /// A configuration for a server a test stops with `stopHoldingPort()`: its port comes from
    /// ``FreePort``, below the kernel's range for outgoing connections' ports. The kernel's pick
    /// for port 0 lies in that range, and in the moment between the server's stop and the hold,
    /// any connection the suite opens may be given the port as its own, and the hold then fails.
    static func holdable(databasePath: String? = nil) throws -> ServerConfiguration {
        ServerConfiguration(port: try FreePort.next(), databasePath: databasePath)
    }
}

/// How many tests run against in-process servers at once. Swift Testing starts every test of the
/// suite together. On two cores, hundreds of them sharing the processor and the concurrency pool
/// put a test's steps tens of seconds apart, and its own limits ran out between them (a
/// request's 60-second timeout, the sample server's 30-second token grace, a retry budget), above
/// all with the machine busy besides. An admitted test runs at about its own speed; the others
/// wait their turn, first come first served, before their clocks start.
final class TestAdmission: Sendable {
    static let shared = TestAdmission(slots: 8)

    /// Whether the current task's test already holds a place (a test that starts a second server,
    /// or starts one from a child task, does not wait for a second place).
    @TaskLocal static var holdsPlace = false

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    init(slots: Int) { state = Locked(State(free: max(slots, 1))) }

    /// Runs `body` holding a place, waiting for one first unless the task holds one already.
    func admitted<T>(_ body: () async throws -> T) async throws -> T {
        if Self.holdsPlace { return try await body() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if now { continuation.resume() }
        }
        defer { leave() }
        return try await Self.$holdsPlace.withValue(true) { try await body() }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
