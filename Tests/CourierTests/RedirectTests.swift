import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Redirects are followed by the client with the same rules on both transports; credentials never
/// follow a redirect to another origin.
@Suite struct RedirectTests {
    func client(_ server: ImageStoreServer, _ transport: any HTTPTransport) -> APIClient {
        server.client(transport) {
            $0.authenticationHeaders = ["access-token", "client", "uid"]
            $0.defaultHeaders = ["Authorization": "Bearer secret", "access-token": "tok", "client": "c1", "uid": "ana", "X-Other": "kept"]
        }
    }

    @Test(arguments: TransportKind.allCases)
    func crossOriginRedirectDropsCredentials(kind: TransportKind) async throws {
        try await withServer { home in
            try await withServer { other in
                try await kind.with { transport in
                    let target = other.baseURL.absoluteString + "/echo/landed"
                    let echo = try await client(home, transport).send(Request<EchoReply>(.get, "redirect", query: ["to": .string(target)]))
                    #expect(echo.value.path == "/echo/landed")
                    #expect(echo.url.absoluteString.hasPrefix(other.baseURL.absoluteString))
                    for name in ["Authorization", "access-token", "client", "uid"] {
                        #expect(echo.value.header(name) == nil, "\(name) reached the other origin")
                    }
                    #expect(echo.value.header("X-Other") == "kept")
                    #expect(other.requestCount("GET", "/echo/**") == 1)
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func sameOriginRedirectKeepsCredentials(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let echo = try await client(server, transport).send(Request<EchoReply>(.get, "redirect", query: ["to": "/echo/same"])).value
                #expect(echo.path == "/echo/same")
                #expect(echo.header("Authorization") == "Bearer secret")
                #expect(echo.header("access-token") == "tok")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func methodRulesPerStatus(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                for (status, method, keepsBody) in [(301, "GET", false), (302, "GET", false), (303, "GET", false), (307, "POST", true), (308, "POST", true)] {
                    let request = Request<EchoReply>(.post, "redirect", query: ["to": "/echo/next", "status": .int(status)], body: ["a": 1])
                    let echo = try await client.send(request).value
                    #expect(echo.method == method, "status \(status)")
                    #expect(echo.bodyText == (keepsBody ? #"{"a":1}"# : ""), "status \(status)")
                    #expect((echo.header("Content-Type") != nil) == keepsBody, "status \(status)")
                }
            }
        }
    }

    @Test func loopsAndMissingLocationsAreTypedErrors() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "redirect/loop")) }
            #expect(error?.kind == .redirectFailed)
            #expect(error?.message.contains("more than 5") == true)
            #expect(server.requestCount("GET", "/redirect/loop") == 6)
            let bad = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "redirect", query: ["to": "ftp://x/y"])) }
            #expect(bad?.kind == .redirectFailed)
        }
    }

    @Test func redirectsCanBeTurnedOff() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) {
                $0.redirects = .none
                $0.acceptableStatusCodes = 200..<400
            }
            let response = try await client.send(Request<Data>(.get, "redirect", query: ["to": "/echo"]))
            #expect(response.statusCode == 302)
            #expect(response.headers["Location"] == "/echo")
            #expect(server.requestCount("/echo") == 0)
        }
    }

    /// A 3xx with no `Location` (nothing to follow: RFC 9110 §15.4 lets it stand as the answer)
    /// is handed back as the response, with its body, whatever the policy. URLSession on Linux
    /// hands back neither head nor body of a 301–308 without `Location`: a clear error says so.
    @Test(arguments: TransportKind.allCases)
    func aRedirectStatusWithoutLocationIsTheAnswer(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                for redirects in [RedirectPolicy(), .none] {
                    let client = server.client(transport) {
                        $0.redirects = redirects
                        $0.acceptableStatusCodes = 200..<400
                        $0.errorPresenter = nil
                    }
                    for code in [300, 301, 302, 303, 307, 308] {
                        #if canImport(FoundationNetworking)
                        if kind == .urlSession, code != 300 {
                            let error = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "status/\(code)")) }
                            #expect(error?.kind == .invalidResponse && error?.statusCode == code && error?.message.contains("Location") == true)
                            continue
                        }
                        #endif
                        let response = try await client.send(Request<JSONValue>(.get, "status/\(code)"))
                        #expect(response.statusCode == code && response.value["status"] == .int(code), "\(code)")
                    }
                }
            }
        }
    }
}
