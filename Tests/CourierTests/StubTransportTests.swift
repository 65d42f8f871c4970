import Courier
import CourierTesting
import Foundation
import Testing

/// The stub transport users get for their own tests.
@Suite struct StubTransportTests {
    @Test func answersStubsRecordsRequestsAndReportsUnmatched() async throws {
        let stub = StubTransport()
        stub.stub(.get, "/v1/me", json: #"{"name":"Ana"}"#)
        stub.stub(.post, "/v1/items") { request in
            StubResponse(status: 201, headers: ["Content-Type": "application/json"], body: request.body ?? Data())
        }
        let client = APIClient(baseURL: URL(string: "https://api.test")!, apiPath: "v1", transport: stub)
        #expect(try await client.send(Request<JSONValue>(.get, "me")).value["name"]?.stringValue == "Ana")
        let created = try await client.send(Request<JSONValue>(.post, "items", body: ["id": 3]))
        #expect(created.statusCode == 201 && created.value["id"]?.intValue == 3)
        let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "missing")) }
        #expect(error?.kind == .httpStatus(404))
        #expect(stub.requests.map(\.url.path) == ["/v1/me", "/v1/items", "/v1/missing"])
        stub.reset()
        #expect(stub.requests.isEmpty)
    }
}
