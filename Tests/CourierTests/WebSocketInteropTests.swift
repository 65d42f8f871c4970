import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// WebSockets against servers nobody here wrote, from PyPI: the `websockets` package's asyncio
/// server (`Scripts/websocket-servers.py`), Autobahn's server and a FastAPI endpoint under uvicorn
/// (`Scripts/websocket-apps.py`), with and without permessage-deflate, on async-http-client
/// (URLSession on Linux has no WebSocket).
@Suite(.timeLimit(.minutes(15)))  // on a fresh clone, a first test waits for the PyPI installs queued before its own
struct WebSocketInteropTests {
    static func start(compression: Bool) async throws -> ToolServer {
        try await ToolServer.start(python: "websocket-servers.py", compression ? [] : ["--no-compression"], in: .websockets)
    }

    static func client(_ server: ToolServer, _ transport: any HTTPTransport, configure: (inout ClientConfiguration) -> Void = { _ in }) -> APIClient {
        var configuration = ClientConfiguration(baseURL: server.url)
        configuration.cache = nil
        configure(&configuration)
        return APIClient(configuration: configuration, transport: transport)
    }

    /// Sends random-looking binary messages of `sizes` bytes, and text of half as many two-byte
    /// characters, each echoed whole before the next.
    static func echoes(_ socket: WebSocket, _ iterator: inout WebSocket.AsyncIterator, sizes: [Int]) async throws {
        for size in sizes {
            let binary = PatternBytes.noise(size, seed: UInt64(size))
            try await socket.send(.binary(binary))
            #expect(try await iterator.next() == .binary(binary), "binary of \(size) bytes")
            let text = String(repeating: "ж", count: size / 2)
            try await socket.send(.text(text))
            #expect(try await iterator.next() == .text(text), "text of \(size / 2) characters")
        }
    }

    /// Text and binary from 0 bytes to 16 MiB, each echoed whole; the server's extension answer
    /// says whether compression was negotiated.
    @Test(arguments: [true, false])
    func echoFromEmptyTo16MiB(compression: Bool) async throws {
        let server = try await Self.start(compression: compression)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            var options = WebSocketOptions()
            options.maximumMessageSize = 17 << 20
            options.pingInterval = nil  // 16 MiB echoed in Python on a loaded machine can outlast a ping interval
            let socket = try await Self.client(server, transport).webSocket(Request(.get, "echo"), options: options)
            #expect((socket.headers["Sec-WebSocket-Extensions"]?.contains("permessage-deflate") ?? false) == compression)
            var iterator = socket.makeAsyncIterator()
            try await Self.echoes(socket, &iterator, sizes: [0, 1, 125, 126, 65_535, 65_536, 1 << 20, 16 << 20])
            try await socket.close()
            #expect(socket.closeCode == .normalClosure)
        }
        await server.stop()
    }

    /// Autobahn's server, with its own permessage-deflate and its messages sent in frames of at
    /// most 64 KiB: text and binary up to 4 MiB echoed whole, then close codes both ways.
    @Test(arguments: [true, false])
    func autobahnEchoesFragmentedAndCloses(compression: Bool) async throws {
        let server = try await ToolServer.start(python: "websocket-apps.py", ["autobahn"] + (compression ? [] : ["--no-compression"]), in: .websockets)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            let client = Self.client(server, transport)
            // No automatic pings: on a loaded machine, Autobahn compressing megabytes in Python can
            // answer one later than the interval, which would end the socket as lost. The explicit
            // ping below is checked.
            var options = WebSocketOptions()
            options.pingInterval = nil
            let socket = try await client.webSocket(Request(.get, "echo"), options: options)
            #expect((socket.headers["Sec-WebSocket-Extensions"]?.contains("permessage-deflate") ?? false) == compression)
            var iterator = socket.makeAsyncIterator()
            try await Self.echoes(socket, &iterator, sizes: [0, 125, 126, 65_536, 65_537, 1 << 20, 4 << 20])
            try await socket.ping()
            try await socket.send(.text("close 4100 autobahn is done"))
            #expect(try await iterator.next() == nil)
            #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4100) && socket.closeReason == "autobahn is done")

            let closedByApp = try await client.webSocket(Request(.get, "echo"))
            try await closedByApp.close(.goingAway, reason: "app leaves")
            #expect(closedByApp.closeCode == .normalClosure)  // Autobahn answers any close with 1000 unless told to echo
            let missing = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, "nowhere")) }
            #expect(missing?.statusCode == 404)
        }
        await server.stop()
    }

    /// A FastAPI endpoint under uvicorn, as applications deploy one: the token header the client
    /// holds reaches the handshake; without one the app refuses with 401 and its body, with a
    /// wrong one with 403.
    @Test func fastAPIEndpointTakesTheTokenAndRefusesWithout() async throws {
        let server = try await ToolServer.start(python: "websocket-apps.py", ["fastapi"], in: .websockets)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            func client(_ token: String?) -> APIClient {
                Self.client(server, transport) {
                    $0.authenticationHeaders = ["Authorization"]
                    $0.credentialStore = .inMemory(token.map { Credentials(headers: ["Authorization": $0], origin: server.url.origin) })
                }
            }
            let socket = try await client("Bearer good").webSocket(Request(.get, "echo"))
            var iterator = socket.makeAsyncIterator()
            for message in [WebSocketMessage.text("from FastAPI"), .binary(Data(count: 300_000)), .text("")] {
                try await socket.send(message)
                #expect(try await iterator.next() == message)
            }
            try await socket.send(.text("close 4200 app closed"))
            #expect(try await iterator.next() == nil)
            #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4200) && socket.closeReason == "app closed")

            let missing = await #expect(throws: CourierError.self) { try await client(nil).webSocket(Request(.get, "echo")) }
            #expect(missing?.statusCode == 401 && missing?.classification == .unauthorized, "\(String(describing: missing))")
            #expect(missing?.bodyText == "token missing")
            let wrong = await #expect(throws: CourierError.self) { try await client("Bearer bad").webSocket(Request(.get, "echo")) }
            #expect(wrong?.statusCode == 403, "\(String(describing: wrong))")
        }
        await server.stop()
    }

    /// The client's cookies go with a handshake as with any request, and a cookie the 101 sets is
    /// kept; logout empties the jar, and the next handshake carries none.
    @Test func aHandshakeCarriesTheClientsCookies() async throws {
        let server = try await Self.start(compression: true)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            let client = Self.client(server, transport)
            func cookieSeen() async throws -> String? {
                let socket = try await client.webSocket(Request(.get, "cookie"))
                var iterator = socket.makeAsyncIterator()
                guard case .text(let text) = try await iterator.next() else { return nil }
                return text
            }
            #expect(try await cookieSeen() == "none")
            _ = try await client.send(Request<Data>(.get, "session"))
            #expect(try await cookieSeen() == "ws-session=s1")
            #expect(client.cookieJar?.cookies.map(\.name) == ["ws-session", "ws-handshake"])
            #expect(try await cookieSeen() == "ws-session=s1; ws-handshake=h1")
            try client.logout()
            #expect(try await cookieSeen() == "none")
        }
        await server.stop()
    }

    /// Close codes both ways: the server's code and reason reach the app; the app's reach the
    /// server, which answers with the same code.
    @Test func closeCodesBothWays() async throws {
        let server = try await Self.start(compression: true)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            let client = Self.client(server, transport)
            let closedByServer = try await client.webSocket(Request(.get, "echo"))
            try await closedByServer.send(.text("close 4321 server is done"))
            var messages = 0
            for try await _ in closedByServer { messages += 1 }
            #expect(messages == 0)
            #expect(closedByServer.closeCode == WebSocketCloseCode(rawValue: 4321))
            #expect(closedByServer.closeReason == "server is done")

            let closedByApp = try await client.webSocket(Request(.get, "echo"))
            try await closedByApp.close(WebSocketCloseCode(rawValue: 4000), reason: "app is done")
            #expect(closedByApp.closeCode == WebSocketCloseCode(rawValue: 4000))
            #expect(closedByApp.closeReason == "app is done")
        }
        await server.stop()
    }

    /// The server picks the first of its subprotocols the client offers; none offered, none chosen.
    @Test func subprotocolIsNegotiated() async throws {
        let server = try await Self.start(compression: true)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            let client = Self.client(server, transport)
            var options = WebSocketOptions()
            options.subprotocols = ["chat.v3", "chat.v1"]
            let chosen = try await client.webSocket(Request(.get, "echo"), options: options)
            #expect(chosen.subprotocol == "chat.v1")
            try await chosen.close()
            let plain = try await client.webSocket(Request(.get, "echo"))
            #expect(plain.subprotocol == nil)
            try await plain.close()
        }
        await server.stop()
    }

    /// A 401 at the handshake comes with its body; with an authenticator, the token is renewed
    /// once and the handshake retried with it.
    @Test func unauthorizedHandshakeRefreshesOnce() async throws {
        struct TokenEndpoint: Authenticator {
            let calls = Locked(0)
            func refreshCredentials(using client: APIClient) async throws -> Bool {
                calls.withLock { $0 += 1 }
                _ = try await client.send(Request<Data>(.get, "token"))
                return true
            }
        }
        let server = try await Self.start(compression: true)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            let stale = Credentials(headers: ["Authorization": "Bearer stale"], origin: server.url.origin)
            let refused = Self.client(server, transport) {
                $0.authenticationHeaders = ["Authorization"]
                $0.credentialStore = .inMemory(stale)
            }
            let error = await #expect(throws: CourierError.self) { try await refused.webSocket(Request(.get, "auth")) }
            #expect(error?.statusCode == 401)
            #expect(error?.classification == .unauthorized)
            #expect(error?.bodyText == "token refused\n")

            let authenticator = TokenEndpoint()
            let client = Self.client(server, transport) {
                $0.authenticationHeaders = ["Authorization"]
                $0.credentialStore = .inMemory(stale)
                $0.authenticator = authenticator
            }
            let socket = try await client.webSocket(Request(.get, "auth"))
            try await socket.send(.text("in"))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .text("in"))
            #expect(authenticator.calls.withLock { $0 } == 1)
            #expect(client.credentials?["Authorization"] == "Bearer good")
            try await socket.close()
        }
        await server.stop()
    }

    /// The server drops the connection three times without a close frame: the socket comes back
    /// each time, the hook resubscribes before anything is read, the events report each
    /// reconnect, and the server's final 1000 ends it.
    @Test func reconnectsThreeTimesAndResubscribes() async throws {
        let server = try await Self.start(compression: true)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            var options = WebSocketOptions()
            options.reconnection = RetryPolicy(
                maximumAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(20), retryableStatusCodes: [], retriesAnyMethod: true)
            let hooks = Locked(0)
            let socket = try await Self.client(server, transport).webSocket(Request(.get, "flaky"), options: options) { socket in
                let number = hooks.withLock { count -> Int in
                    count += 1
                    return count
                }
                try await socket.send(.text("subscribe \(number)"))
            }
            var seen: [String] = []
            for try await event in socket.events {
                if let reconnect = event.reconnect { seen.append("reconnect \(reconnect)") }
                if case .text(let text) = event.message { seen.append(text) }
            }
            #expect(seen == [
                "subscribe 1 on connection 1", "reconnect 1", "subscribe 2 on connection 2", "reconnect 2",
                "subscribe 3 on connection 3", "reconnect 3", "subscribe 4 on connection 4",
            ])
            #expect(socket.reconnects == 3)
            #expect(socket.closeCode == .normalClosure)
            #expect(socket.closeReason == "done")
        }
        await server.stop()
    }

    /// A connection's metrics (messages and bytes each way, the close code) and its one span,
    /// open from the handshake to the close.
    @Test func metricsAndASpanPerConnection() async throws {
        let server = try await Self.start(compression: true)
        defer { Task { await server.stop() } }
        try await TransportKind.asyncHTTPClient.with { transport in
            let metrics = TestMetrics()
            let tracer = InMemoryTracer()
            let client = Self.client(server, transport) {
                $0.metricsFactory = metrics
                $0.tracer = tracer
            }
            let socket = try await client.webSocket(Request(.get, "echo").named("echo"))
            #expect(tracer.popFinishedSpans().isEmpty, "the span stays open while the connection is")
            var iterator = socket.makeAsyncIterator()
            for text in ["one", "three"] {
                try await socket.send(.text(text))
                _ = try await iterator.next()
            }
            try await socket.send(.text("close 4000 bye"))
            #expect(try await iterator.next() == nil)
            func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
                metrics.counterTotal(label: label, dimensions: dimensions)
            }
            #expect(total("courier_requests_total", [("method", "GET"), ("status_class", "1xx"), ("request", "echo")]) == 1)
            #expect(total("courier_websocket_messages_total", [("direction", "sent"), ("request", "echo")]) == 3)
            #expect(total("courier_websocket_messages_total", [("direction", "received"), ("request", "echo")]) == 2)
            #expect(total("courier_bytes_sent_total", [("method", "GET"), ("request", "echo")]) == Int64("onethreeclose 4000 bye".utf8.count))
            #expect(total("courier_bytes_received_total", [("method", "GET"), ("request", "echo")]) == Int64("onethree".utf8.count))
            #expect(total("courier_websocket_closes_total", [("code", "4xxx"), ("request", "echo")]) == 1)
            let span = try #require(tracer.popFinishedSpans().last)
            #expect(span.operationName == "GET echo")
            #expect(span.attributes.get("http.response.status_code") == .int64(101))
            #expect(span.attributes.get("courier.websocket.messages_sent") == .int64(3))
            #expect(span.attributes.get("courier.websocket.messages_received") == .int64(2))
            #expect(span.attributes.get("courier.websocket.close_code") == .int64(4000))

            // Closed by the app without reading to the end: the span ends at the close.
            let closedByApp = try await client.webSocket(Request(.get, "echo").named("echo"))
            try await closedByApp.send(.text("unread"))
            try await closedByApp.close(WebSocketCloseCode(rawValue: 4100), reason: "enough")
            let ended = try #require(tracer.popFinishedSpans().last)
            #expect(ended.attributes.get("courier.websocket.messages_sent") == .int64(1))
            #expect(ended.attributes.get("courier.websocket.close_code") == .int64(4100))
        }
        await server.stop()
    }
}
