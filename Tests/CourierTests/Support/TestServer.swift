import BenchWorkloads
import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// Runs `body` against a fresh in-process server on 127.0.0.1 (port 0, temporary SQLite file),
/// stopping it afterwards whatever happens.
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
