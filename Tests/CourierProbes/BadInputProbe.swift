import Courier
import CourierDemo
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// Sends requests the app built wrongly (infinite and negative timeouts, line breaks in headers, a
/// method that is not a token, non-finite numbers in bodies…) through Courier to an in-process
/// server, and reports what each one got. The check behind "bad input from the app never crashes
/// and never reaches the wire", run in a process of its own (`courier-test-helper bad-input-probe`): before
/// these checks, some of these values killed the process.
package enum BadInputProbe {
    /// What one bad request got.
    package struct Outcome: Sendable, CustomStringConvertible {
        /// The case's name, such as `timeout-infinity`.
        package let name: String
        /// The error's kind, or `success` when the request succeeded.
        package let kind: String
        /// The error's message.
        package let message: String

        /// `case=<name> kind=<kind> message=<message on one line>`.
        package var description: String {
            "case=\(name) kind=\(kind) message=\(message.replacingOccurrences(of: "\n", with: " "))"
        }
    }

    /// A case: its name and how to send it with a client.
    struct Case: Sendable {
        let name: String
        let send: @Sendable (APIClient, URL) async throws -> Void
    }

    /// Every case, in order.
    static let cases: [Case] = {
        var cases: [Case] = []
        func request(_ name: String, _ change: @escaping @Sendable (inout Request<Data>) -> Void) {
            cases.append(Case(name: name) { client, _ in
                var request = Request<Data>(.get, "echo")
                change(&request)
                _ = try await client.send(request)
            })
        }
        request("timeout-infinity") { $0.timeout = .infinity }
        request("timeout-nan") { $0.timeout = .nan }
        request("timeout-negative") { $0.timeout = -1 }
        request("timeout-zero") { $0.timeout = 0 }
        request("maximum-size-negative") { $0.maximumResponseSize = -1 }
        request("header-value-crlf") { $0.headers["X-Note"] = "a\r\nX-Injected: 1" }
        request("header-value-nul") { $0.headers["X-Note"] = "a\u{0}b" }
        request("header-name-crlf") { $0.headers["X-Bad\r\nX-Injected"] = "1" }
        request("header-name-space") { $0.headers["X Bad"] = "1" }
        request("header-name-empty") { $0.headers[""] = "1" }
        request("method-space") { $0.method = HTTPMethod(rawValue: "GET /admin") }
        request("method-empty") { $0.method = HTTPMethod(rawValue: "") }
        request("retry-negative-budget") {
            var policy = RetryPolicy.standard
            policy.budget = .seconds(-1)
            $0.retryPolicy = policy
        }
        request("json-infinity") {
            $0.method = .post
            $0.body = ["user": ["scores": [1.0, .double(.infinity)]]]
        }
        request("form-nan") {
            $0.method = .post
            $0.body = ["score": .double(.nan)]
            $0.encoder = URLFormParameterEncoder()
        }
        request("query-infinity") { $0.query = ["score": .double(-.infinity)] }
        request("get-with-body") { $0.body = .data(Data("x".utf8), contentType: "text/plain") }
        cases.append(Case(name: "model-date-infinity") { client, _ in
            // A model with a date no text can hold, through ModelEncoder's fixed date format.
            var configuration = client.configuration
            configuration.encoder = ModelEncoder()
            let encoding = APIClient(configuration: configuration, transport: client.transport)
            _ = try await encoding.send(Request<Data>(.post, "echo", body: .json(Stamp(at: Date(timeIntervalSince1970: .infinity)))))
        })
        cases.append(Case(name: "download-timeout-infinity") { client, directory in
            var request = Request<Data>(.get, "echo")
            request.timeout = .infinity
            _ = try await client.download(request, to: directory.appendingPathComponent("download.bin"))
        })
        func webSocket(_ name: String, _ request: Request<Data> = Request(.get, "ws/echo"), _ change: @escaping @Sendable (inout WebSocketOptions) -> Void) {
            cases.append(Case(name: name) { client, _ in
                var options = WebSocketOptions()
                change(&options)
                _ = try await client.webSocket(request, options: options)
            })
        }
        webSocket("websocket-message-size-huge") { $0.maximumMessageSize = .max }
        webSocket("websocket-message-size-zero") { $0.maximumMessageSize = 0 }
        webSocket("websocket-ping-zero") { $0.pingInterval = .zero }
        webSocket("websocket-subprotocol-space") { $0.subprotocols = ["chat v1"] }
        webSocket("websocket-reconnection-negative-delay") {
            var policy = RetryPolicy.reconnecting
            policy.baseDelay = .seconds(-1)
            $0.reconnection = policy
        }
        webSocket("websocket-post", Request(.post, "ws/echo")) { _ in }
        webSocket("websocket-timeout-nan", {
            var request = Request<Data>(.get, "ws/echo")
            request.timeout = .nan
            return request
        }()) { _ in }
        return cases
    }()

    /// Runs every case through `transport` against a new server; then the number of requests the
    /// server saw (0: nothing reached the wire), with `configurationCases` for client-wide values.
    package static func run(transport kind: DemoTransport, directory: URL) async throws -> (outcomes: [Outcome], serverRequests: Int) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = try await ImageStoreServer.instrumented()
        let ahc = AsyncHTTPClientTransport()
        let transport: any HTTPTransport = kind == .ahc ? ahc : URLSessionTransport()
        var outcomes: [Outcome] = []
        func attempt(_ name: String, _ body: () async throws -> Void) async {
            do {
                try await body()
                outcomes.append(Outcome(name: name, kind: "success", message: ""))
            } catch let error as CourierError {
                outcomes.append(Outcome(name: name, kind: "\(error.kind)", message: error.message))
            } catch {
                outcomes.append(Outcome(name: name, kind: "other", message: "\(error)"))
            }
        }
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        let client = APIClient(configuration: configuration, transport: transport)
        for probe in cases {
            await attempt(probe.name) { try await probe.send(client, directory) }
        }
        for (name, change) in configurationCases {
            var bad = configuration
            change(&bad)
            await attempt(name) { _ = try await APIClient(configuration: bad, transport: transport).send(Request<Data>(.get, "echo")) }
        }
        let hooked = HeaderAddingDelegate()
        var withHook = configuration
        withHook.delegate = hooked
        await attempt("delegate-header-crlf") { _ = try await APIClient(configuration: withHook, transport: transport).send(Request<Data>(.get, "echo")) }
        let seen = server.requestCounts.values.reduce(0, +)
        await server.stop()
        try? await ahc.shutdown()
        return (outcomes, seen)
    }

    /// Client-wide values, checked when the client is made.
    static let configurationCases: [(String, @Sendable (inout ClientConfiguration) -> Void)] = [
        ("configuration-timeout-infinity", { $0.timeout = .infinity }),
        ("configuration-timeout-negative", { $0.timeout = -5 }),
        ("configuration-header-crlf", { $0.defaultHeaders["X-Note"] = "a\r\nb" }),
        ("configuration-maximum-size-negative", { $0.maximumResponseSize = -1 }),
        ("configuration-freshness-nan", { $0.cacheFreshness = .age(.nan) }),
        ("configuration-retry-attempts-zero", { $0.retryPolicy.maximumAttempts = 0 }),
        ("configuration-downloads-directory-web", { $0.resumableDownloadsDirectory = URL(string: "https://example.com/downloads") }),
    ]

    /// A model with a date.
    struct Stamp: Codable, Sendable {
        let at: Date
    }

    /// A hook that adds a header with a line break to every request.
    final class HeaderAddingDelegate: APIClientDelegate {
        func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
            var request = request
            request.headers["X-Hooked"] = "a\nb"
            return request
        }
    }
}
