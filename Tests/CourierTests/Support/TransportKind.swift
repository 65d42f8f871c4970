import Testing
import Courier
import CourierAsyncHTTPClient

/// The transports every end-to-end test runs on.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient

    var testDescription: String { rawValue }

    /// The name `courier --transport` takes.
    var commandLineName: String { self == .urlSession ? "urlsession" : "ahc" }

    /// Runs `body` with a new transport of this kind, shutting it down afterwards.
    func with<T>(_ body: (any HTTPTransport) async throws -> T) async throws -> T {
        switch self {
        case .urlSession:
            return try await body(URLSessionTransport())
        case .asyncHTTPClient:
            // async-http-client bounds the wait for a free pooled connection by the connect timeout;
            // tests that queue 64–100 requests on a loaded 2-core machine can wait longer than the
            // default 10 s without anything being wrong.
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.connectTimeout = .seconds(60)
            let transport = AsyncHTTPClientTransport(configuration: configuration)
            do {
                let result = try await body(transport)
                try await transport.shutdown()
                return result
            } catch {
                try? await transport.shutdown()
                throw error
            }
        }
    }
}
