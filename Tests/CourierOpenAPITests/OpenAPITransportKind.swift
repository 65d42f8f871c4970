import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The Courier transports the generated client runs on.
enum OpenAPITransportKind: String, CaseIterable, Sendable {
    case urlSession
    case asyncHTTPClient

    /// Runs `body` with a fresh sample server (127.0.0.1, port 0, temporary SQLite file), a new
    /// transport of this kind and a temporary directory, all stopped or removed afterwards.
    /// Runs `body` with a server, a transport of this kind and a temporary folder. A server the test
    /// stops with `stopHoldingPort()` is `holdable`: on a port from `FreePort`, which no outgoing
    /// connection can be given between the stop and the hold.
    func withServer<T>(holdable: Bool = false, _ body: (ImageStoreServer, any HTTPTransport, URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ImageStoreServer.instrumented(ServerConfiguration(port: holdable ? try FreePort.next() : 0))
        let transport: any HTTPTransport = self == .urlSession ? URLSessionTransport() : AsyncHTTPClientTransport()
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(server, transport, directory))
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        if let ahc = transport as? AsyncHTTPClientTransport { try? await ahc.shutdown() }
        return try outcome.get()
    }
}

extension ImageStoreServer {
    /// A Courier client for this server: the sample server's authentication headers captured and
    /// sent, no presenter, and `cache` (none unless given).
    func courierClient(_ transport: any HTTPTransport, cache: ResponseCache? = nil, configure: (inout ClientConfiguration) -> Void = { _ in }) -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL, authenticationHeaders: ["access-token", "token-type", "client", "expiry", "uid"])
        configuration.cache = cache
        configuration.errorPresenter = nil
        configuration.credentialStore = CredentialStore.inMemory()
        configure(&configuration)
        return APIClient(configuration: configuration, transport: transport)
    }
}
