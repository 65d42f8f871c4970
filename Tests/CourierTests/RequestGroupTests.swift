import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Per-group customisation: a group's own base URL and parameters injected into every request.
@Suite struct RequestGroupTests {
    @Test func groupBaseURLAndInjectedParametersReachTheServer() async throws {
        try await withServer { api in
            try await withServer { billing in
                let client = api.client(URLSessionTransport(), apiPath: "v1")
                let group = RequestGroup(
                    baseURL: billing.baseURL, apiPath: "echo", headers: ["X-Group": "billing"],
                    bodyParameters: ["email": "ana@example.com"], queryParameters: ["locale": "pt"])
                let echo = try await client.send(group.request(.post, "invoices", query: ["page": 2], body: ["amount": 10], as: EchoReply.self)).value
                #expect(echo.path == "/echo/invoices")
                #expect(echo.query == "locale=pt&page=2")
                #expect(echo.bodyText == #"{"amount":10,"email":"ana@example.com"}"#)
                #expect(echo.header("X-Group") == "billing")
                #expect(billing.requestCount("POST", "/echo/**") == 1)
                #expect(api.requestCount("/echo/**") == 0)
            }
        }
    }

    @Test func requestSettingsWinOverTheGroup() throws {
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!, apiPath: "v1")
        let group = RequestGroup(
            baseURL: URL(string: "https://group.example.com"), headers: ["X-A": "group"],
            bodyParameters: ["email": "group@example.com", "g": 1], queryParameters: ["q": "group"])
        var request = Request<Data>(.post, "x", query: ["q": "own"], body: ["email": "own@example.com"], headers: ["x-a": "own"])
        request.baseURL = URL(string: "https://own.example.com")
        let wire = try client.transportRequest(for: group.apply(to: request))
        #expect(wire.url.absoluteString == "https://own.example.com/v1/x?q=own")
        #expect(wire.headers["X-A"] == "own")
        #expect(String(decoding: wire.body ?? Data(), as: UTF8.self) == #"{"email":"own@example.com","g":1}"#)
    }

    @Test func getRequestsTakeGroupParametersInTheQuery() throws {
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!)
        let group = RequestGroup(bodyParameters: ["email": "ana@example.com"])
        let wire = try client.transportRequest(for: group.request(.get, "me", as: JSONValue.self))
        #expect(wire.url.query == "email=ana%40example.com")
        #expect(wire.body == nil)
    }

    @Test func parametersCannotBeInjectedIntoAnEncodableBody() {
        struct Body: Encodable, Sendable { var a = 1 }
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!)
        let group = RequestGroup(bodyParameters: ["email": "ana@example.com"])
        let error = #expect(throws: CourierError.self) {
            try client.transportRequest(for: group.request(.post, "x", body: .json(Body()), as: JSONValue.self))
        }
        #expect(error?.kind == .encodingFailed)
        #expect(error?.message.contains("email") == true)
    }
}
