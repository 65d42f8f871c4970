import Courier
import Foundation
import ImageStoreServer

/// Runs `body` against a fresh in-process server on 127.0.0.1 (port 0, temporary SQLite file),
/// stopping it afterwards whatever happens.
func withServer<T>(
    _ configuration: ServerConfiguration = ServerConfiguration(), _ body: (ImageStoreServer) async throws -> T
) async throws -> T {
    let server = try await ImageStoreServer.start(configuration)
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
