import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The client delegate's hooks.
@Suite struct DelegateTests {
    final class Signer: APIClientDelegate {
        let seen = Locked<[Int]>([])

        func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
            var request = request
            request.headers["X-Signature"] = "sig:\(request.method):\(request.url.path)"
            return request
        }

        func client(_ client: APIClient, didReceive response: TransportResponse, for request: TransportRequest) async {
            seen.withLock { $0.append(response.statusCode) }
        }
    }

    struct Refuser: APIClientDelegate {
        struct NotSignedIn: Error {}
        func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest { throw NotSignedIn() }
    }

    struct Silent: APIClientDelegate {}

    @Test func adaptsRequestsAndObservesResponses() async throws {
        try await withServer { server in
            let signer = Signer()
            let client = server.client(URLSessionTransport()) { $0.delegate = signer }
            let echo = try await client.send(Request<EchoReply>(.delete, "echo/7")).value
            #expect(echo.header("X-Signature") == "sig:DELETE:/echo/7")
            _ = try? await client.send(Request<Data>(.get, "status/418"))
            #expect(signer.seen.withLock { $0 } == [200, 418])
        }
    }

    @Test func aThrowingHookFailsTheRequestWithItsCause() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.delegate = Refuser() }
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "sample")) }
            #expect(error?.underlyingError is Refuser.NotSignedIn)
            #expect(server.requestCount("/sample") == 0)
        }
    }

    @Test func defaultImplementationsChangeNothing() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.delegate = Silent() }
            let response = try await client.send(Request<Data>(.get, "sample"))
            #expect(response.statusCode == 200)
        }
    }
}
