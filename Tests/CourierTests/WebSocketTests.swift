import BenchWorkloads
@testable import Courier
@testable import CourierExamples
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// WebSockets against the sample server's `/ws/echo` and `/ws/feed` (hummingbird-websocket), on
/// async-http-client; URLSession on Linux refuses at once.
@Suite(.timeLimit(.minutes(10)))  // a test's time counts from its start, and may begin with its turn for a server (TestAdmission)
struct WebSocketTests {
    /// Every message of `socket` until it ends.
    static func drain(_ socket: WebSocket) async throws -> [WebSocketMessage] {
        var messages: [WebSocketMessage] = []
        for try await message in socket { messages.append(message) }
        return messages
    }

    /// A client of `server` signed in as the demo user, its credentials in memory.
    static func signedInClient(_ server: ImageStoreServer, _ transport: any HTTPTransport) async throws -> APIClient {
        let client = server.client(transport) {
            $0.authenticationHeaders = AuthenticationTests.names
            $0.credentialStore = .inMemory()
        }
        _ = try await AuthenticationTests.signIn(client)
        return client
    }

    @Test(arguments: [true, false])
    func echoesTextAndBinaryWholeAndLarge(compression: Bool) async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                var options = WebSocketOptions()
                options.compression = compression
                let socket = try await server.client(transport).webSocket(Request(.get, "ws/echo"), options: options)
                #expect(socket.statusCode == 101)
                #expect((socket.headers["Sec-WebSocket-Extensions"]?.contains("permessage-deflate") ?? false) == compression)
                let messages: [WebSocketMessage] = [
                    .text("héllo ✓"), .text(""), .binary(Data()), .binary(PatternBytes.noise(70_000)),
                    .text(String(repeating: "courier ", count: 300_000)), .binary(Data(count: 3 << 20)),
                ]
                var iterator = socket.makeAsyncIterator()
                for message in messages {
                    try await socket.send(message)
                    #expect(try await iterator.next() == message)
                }
                // Pings answered by the server, several at once: each waits for its own pong.
                async let first = socket.ping()
                async let second = socket.ping()
                let rounds = try await [first, second, socket.ping()]
                #expect(rounds.allSatisfy { $0 > .zero })
                try await socket.send(.text("close 4001 bye now"))
                #expect(try await iterator.next() == nil)
                #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4001))
                #expect(socket.closeReason == "bye now")
                let closed = await #expect(throws: CourierError.self) { try await socket.send(.text("late")) }
                #expect(closed?.kind == .invalidRequest)
                #expect(closed?.message.contains("4001") == true)
                let late = await #expect(throws: CourierError.self) { try await socket.ping() }
                #expect(late?.kind == .invalidRequest && late?.message.contains("no ping was sent") == true)
            }
        }
    }

    /// `/ws/bytes/{count}`: the bytes of `/bytes/{count}` in 64 KiB binary messages, then 1000.
    @Test func bytesRouteSendsTheCountInPieces() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let socket = try await server.client(transport).webSocket(Request(.get, "ws/bytes/200000"))
                var sizes: [Int] = []
                var bytes = Data()
                for try await message in socket {
                    if case .binary(let data) = message {
                        sizes.append(data.count)
                        bytes.append(data)
                    }
                }
                #expect(sizes == [65_536, 65_536, 65_536, 3_392])
                #expect(bytes == PatternBytes.make(200_000) { UInt8($0 % 251) })
                #expect(socket.closeCode == .normalClosure && socket.closeReason == "done")
            }
        }
    }

    /// A reader that keeps pace with the connection never lets the inbox empty; the messages it
    /// has read must still be let go (they once stayed queued until the queue emptied, so a slow
    /// reader of 1 GiB kept most of it in memory).
    @Test func theInboxLetsGoOfWhatWasRead() async throws {
        let inbox = WebSocketInbox(limit: 1 << 20)
        for _ in 0..<3 { _ = await inbox.push(.binary(Data(count: 1024))) }
        var largest = 0
        for number in 0..<10_000 {
            #expect(await inbox.push(.text("message \(number)")))
            _ = try await inbox.next()
            largest = max(largest, inbox.slots)
        }
        #expect(largest <= 130, "\(largest) slots kept")
    }

    @Test func clientClosesWithItsCodeAndSendsNoMore() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let socket = try await server.client(transport).webSocket(Request(.get, "ws/echo"))
                try await socket.send(.text("one"))
                try await socket.close(.goingAway, reason: "leaving")
                // The server answered the close (hummingbird-websocket answers with 1000, not the code it got).
                #expect(socket.closeCode != nil)
                #expect(try await Self.drain(socket) == [])
                await #expect(throws: CourierError.self) { try await socket.send(.text("two")) }
                try await socket.close()
            }
        }
    }

    /// hummingbird-websocket answers every refused upgrade with 400 and no body (the 401 with a
    /// body is tested against the `websockets` server, WebSocketInteropTests).
    @Test func feedWithoutCredentialsIsRefused() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let client = server.client(transport)
                let error = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, "ws/feed")) }
                #expect(error?.statusCode == 400)
                #expect(error?.message.contains("WebSocket handshake") == true || error?.message.contains("400") == true)
            }
        }
    }

    @Test func feedCarriesCapturedCredentialsAndCapturesTheRotatedToken() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let client = try await Self.signedInClient(server, transport)
                let before = client.credentials?["access-token"]
                let socket = try await client.webSocket(Request(.get, "ws/feed", query: ["count": 3]))
                #expect(socket.headers["x-feed-user"] == "demo@example.com")
                #expect(client.credentials?["access-token"] != before)
                let texts = try await Self.drain(socket).map { message -> String in
                    if case .text(let text) = message { return text }
                    return "binary"
                }
                #expect(texts == ["hello demo@example.com", "tick 1", "tick 2", "tick 3"])
                #expect(socket.closeCode == .normalClosure)
                #expect(socket.closeReason == "done")
            }
        }
    }

    /// A message over the limit closes the connection with 1009 and fails the reader, whole
    /// (one frame) or compressed below the limit and larger once inflated.
    @Test(arguments: [true, false])
    func messageOverTheLimitFailsTheReader(compression: Bool) async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                var options = WebSocketOptions()
                options.compression = compression
                options.maximumMessageSize = 1000
                let socket = try await server.client(transport).webSocket(Request(.get, "ws/echo"), options: options)
                var iterator = socket.makeAsyncIterator()
                try await socket.send(.binary(Data(count: 1000)))
                #expect(try await iterator.next() == .binary(Data(count: 1000)))
                try await socket.send(.binary(Data(count: 1500)))
                let error = await #expect(throws: CourierError.self) { _ = try await iterator.next() }
                #expect(error?.kind == .responseTooLarge, "\(error?.message ?? "")")
                #expect(error?.message.contains("1009") == true)
                #expect(try await iterator.next() == nil)
            }
        }
    }

    /// Cancelling the reading task ends its loop and closes the connection.
    @Test func cancellingTheReaderClosesTheConnection() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let socket = try await server.client(transport).webSocket(Request(.get, "ws/echo"))
                let reader = Task { try await Self.drain(socket) }
                try await socket.send(.text("first"))
                reader.cancel()
                _ = try? await reader.value
                // The close runs on its own; once it has, a send is refused.
                var refused = false
                for _ in 0..<200 where !refused {
                    do { try await socket.send(.text("after")) } catch { refused = true }
                    if !refused { await Task.yield() }
                }
                try await socket.close()
                await #expect(throws: CourierError.self) { try await socket.send(.text("after close")) }
            }
        }
    }

    @Test func badInputIsRefusedBeforeSending() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let client = server.client(transport)
                let post = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.post, "ws/echo")) }
                #expect(post?.kind == .invalidRequest)
                var options = WebSocketOptions()
                options.subprotocols = ["bad name"]
                let subprotocol = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, "ws/echo"), options: options) }
                #expect(subprotocol?.message.contains("bad name") == true)
                let missing = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, "ws/nothing")) }
                #expect(missing?.statusCode == 400)
            }
        }
    }

    /// swift-corelibs-foundation's URLSession has no WebSocket: a clear error, nothing sent.
    @Test func urlSessionOnLinuxRefusesAtOnce() async throws {
        #if !canImport(Darwin)
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let error = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, "ws/echo")) }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.message.contains("AsyncHTTPClientTransport") == true)
            #expect(error?.message.contains("Linux") == true)
            #expect(server.requestCount("GET", "/ws/echo") == 0)
        }
        #endif
    }

    /// The README's feed example and the DocC article's chat session run as they say.
    @Test func theReadmeAndArticleExamplesRun() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let client = try await Self.signedInClient(server, transport)
                #expect(try await ReadmeFeed.read(client: client) == ["hello demo@example.com", "tick 1", "tick 2", "tick 3"])
                #expect(try await chat(in: "lobby", saying: ["hi", "there"], until: 3, client: client) == ["join lobby", "hi", "there"])
            }
        }
    }
}
