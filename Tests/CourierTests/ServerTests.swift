import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The sample server's skeleton: lifecycle, counters, diagnostic routes.
@Suite struct ServerTests {
    @Test func startsOnAFreeLoopbackPortWithATemporaryDatabaseAndStopsCleanly() async throws {
        let server = try await ImageStoreServer.instrumented()
        #expect(server.host == "127.0.0.1" && server.port > 0)
        #expect(FileManager.default.fileExists(atPath: server.databasePath))
        let client = APIClient(baseURL: server.baseURL)
        #expect(try await client.send(Request<Data>(.get, "sample")).statusCode == 200)
        await server.stop()
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.databasePath))
        let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "sample")) }
        #expect(error?.kind == .cannotConnect)
    }

    /// A server started without ``Instruments`` (a plain `courier serve`) serves no hold gates and
    /// no counters; the documented routes, `/flaky/{key}` among them, are served. An extension's
    /// routes and middleware are added where ``ServerExtension`` says.
    @Test func theTestRoutesAreServedOnlyByAnInstrumentedServer() async throws {
        let server = try await ImageStoreServer.start()
        let client = APIClient(baseURL: server.baseURL)
        for path in ["_counters", "hold/k"] {
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, path)) }
            #expect(error?.statusCode == 404, "\(path)")
        }
        #expect(try await client.send(Request<Data>(.get, "flaky/k", query: ["failures": 0])).statusCode == 200)
        #expect(!server.routes.contains("GET /_counters") && !server.routes.contains("GET /hold/{key}"))
        await server.stop()
        let full = try await ImageStoreServer.instrumented()
        #expect(full.routes.contains("GET /_counters") && full.routes.contains("GET /hold/{key}"))
        let fullClient = APIClient(baseURL: full.baseURL)
        _ = try await fullClient.send(Request<Data>(.get, "flaky/k", query: ["failures": 0]))
        _ = try await fullClient.send(Request<Data>(.get, "flaky/k", query: ["failures": 0]))
        _ = try await fullClient.send(Request<Data>(.get, "_counters"))
        #expect(full.flakyAttempts("k") == 2)
        #expect(full.requestCount("GET", "/flaky/{key}") == 2)
        #expect(full.requestCount("/_counters") == 0)
        await full.stop()
    }

    @Test func keepsAGivenDatabaseFileAndFailsClearlyOnABusyPort() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await ImageStoreServer.instrumented(ServerConfiguration(databasePath: path))
        await #expect(throws: (any Error).self) {
            _ = try await ImageStoreServer.instrumented(ServerConfiguration(port: server.port))
        }
        await server.stop()
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// Stopped holding its port, a server's URL refuses connections (and no server started on
    /// port 0 is given the port); released, the port takes the server back on the same database.
    @Test func aServerStoppedHoldingItsPortComesBackOnItOnceReleased() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await ImageStoreServer.instrumented(ServerConfiguration(databasePath: path))
        let client = server.client(URLSessionTransport())
        try await client.putDocument("a", "kept")
        try await server.stopHoldingPort()
        let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "sample")) }
        #expect(error?.kind == .cannotConnect)
        server.releasePort()
        server.releasePort()  // a second release does nothing
        try await withServer(ServerConfiguration(port: server.port, databasePath: path)) { back in
            #expect(back.port == server.port)
            let kept = try await client.send(Request<String>(.get, "documents/a", serializer: .string)).value
            #expect(kept == "kept")
        }
    }

    @Test func countsRequestsPerRoute() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            _ = try await client.send(Request<Data>(.get, "echo/a"))
            _ = try await client.send(Request<Data>(.post, "echo/b/c"))
            _ = try await client.send(Request<Data>(.get, "echo"))
            _ = try? await client.send(Request<Data>(.get, "status/500"))
            #expect(server.requestCount("GET", "/echo/**") == 1)
            #expect(server.requestCount("/echo/**") == 2)
            #expect(server.requestCount("/echo") == 1)
            #expect(server.requestCount("GET", "/status/{code}") == 1)
            let counters = try await client.send(Request<[String: Int]>(.get, "_counters")).value
            #expect(counters == ["GET /echo/**": 1, "POST /echo/**": 1, "GET /echo": 1, "GET /status/{code}": 1])
            server.resetCounters()
            #expect(server.requestCounts.isEmpty)
        }
    }

    @Test func rejectsBadDiagnosticParameters() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            for path in [
                "status/99", "status/abc", "redirect", "redirect?to=/x&status=200", "bytes/-1",
                "flaky/d?retry_after_date=1e300", "flaky/d?retry_after_date=inf", "flaky/d?retry_after_date=soon",
            ] {
                let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, path)) }
                #expect(error?.kind == .httpStatus(400), "\(path)")
            }
        }
    }
}
