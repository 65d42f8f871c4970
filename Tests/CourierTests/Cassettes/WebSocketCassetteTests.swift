import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// WebSocket sessions in HAR cassettes, as Chrome writes them (`_resourceType: "websocket"`,
/// `_webSocketMessages`): recorded by `RecordingTransport` against the sample server and replayed
/// with the server gone; a session mitmproxy recorded (its HAR export, from PyPI) replays too.
@Suite(.timeLimit(.minutes(15)))  // on a fresh clone, a first test waits for the PyPI installs queued before its own
struct WebSocketCassetteTests {
    static let binary = Data([0, 1, 2, 250, 255])

    /// The session both tests run: a greeting-free echo of a text and a binary message, then the
    /// server closes with 4001 when asked. Returns what the app read and how the socket closed.
    static func converse(_ client: APIClient) async throws -> (messages: [WebSocketMessage], code: WebSocketCloseCode?, reason: String?) {
        let socket = try await client.webSocket(Request(.get, "ws/echo"))
        #expect(socket.statusCode == 101)
        var iterator = socket.makeAsyncIterator()
        var messages: [WebSocketMessage] = []
        for message in [WebSocketMessage.text("héllo ✓"), .binary(binary)] {
            try await socket.send(message)
            if let echoed = try await iterator.next() { messages.append(echoed) }
        }
        try await socket.ping()
        try await socket.send(.text("close 4001 done here"))
        while let message = try await iterator.next() { messages.append(message) }
        return (messages, socket.closeCode, socket.closeReason)
    }

    @Test func aSessionIsRecordedAsChromeWritesItAndReplaysWithTheServerGone() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("session.har")
        var baseURL = URL(fileURLWithPath: "/")
        try await TransportKind.asyncHTTPClient.with { transport in
            try await withServer { server in
                baseURL = server.baseURL
                let cassette = try Cassette(file: file)
                let live = try await Self.converse(CassetteReplayTests.client(server.baseURL, RecordingTransport(wrapping: transport, cassette: cassette)))
                #expect(live.messages == [.text("héllo ✓"), .binary(Self.binary)])
                #expect(live.code == WebSocketCloseCode(rawValue: 4001) && live.reason == "done here")
                try cassette.flush()
            }
        }
        // The file, as Chrome writes a session.
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let entries = (document?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(entries.count == 1)
        let entry = entries.first ?? [:]
        #expect(entry["_resourceType"] as? String == "websocket")
        #expect((entry["request"] as? [String: Any])?["url"] as? String == "ws://\(baseURL.host ?? ""):\(baseURL.port ?? 0)/ws/echo")
        #expect((entry["response"] as? [String: Any])?["status"] as? Int == 101)
        let recorded = (entry["_webSocketMessages"] as? [[String: Any]] ?? []).map { message in
            "\(message["type"] as? String ?? "?") \(message["opcode"] as? Int ?? 0) \(message["data"] as? String ?? "?")"
        }
        #expect(recorded == [
            "send 1 héllo ✓", "receive 1 héllo ✓", "send 2 \(Self.binary.base64EncodedString())", "receive 2 \(Self.binary.base64EncodedString())",
            "send 1 close 4001 done here",
        ])
        let times = (entry["_webSocketMessages"] as? [[String: Any]] ?? []).compactMap { $0["time"] as? Double }
        #expect(times.count == 5 && times.allSatisfy { abs($0 - Date().timeIntervalSince1970) < 600 })
        // Replayed with the server stopped: the same messages and close, answers after their questions.
        let cassette = try Cassette(file: file, mode: .none)
        let replayed = try await Self.converse(CassetteReplayTests.client(baseURL, ReplayTransport(cassette: cassette)))
        #expect(replayed.messages == [.text("héllo ✓"), .binary(Self.binary)])
        #expect(replayed.code == WebSocketCloseCode(rawValue: 4001) && replayed.reason == "done here")
        #expect(cassette.unusedEntryCount == 0)
    }

    /// A reader of a replayed session waits for the app's sends, as it would on the server: the
    /// echo does not arrive before its message is sent, and cancelling the waiting reader ends it.
    @Test func aReplayedAnswerWaitsForItsQuestion() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("session.har")
        try Data(
            #"""
            {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [{
              "startedDateTime": "2026-11-28T10:00:00.000Z", "time": 3, "_resourceType": "websocket",
              "request": {"method": "GET", "url": "wss://chat.example/ws", "headers": []},
              "response": {"status": 101, "statusText": "Switching Protocols", "headers": [{"name": "Upgrade", "value": "websocket"}], "content": {"size": 0, "mimeType": "", "text": ""}},
              "timings": {"wait": 3},
              "_webSocketMessages": [
                {"type": "receive", "time": 1764324000.1, "opcode": 1, "data": "welcome"},
                {"type": "send", "time": 1764324000.2, "opcode": 1, "data": "ping me"},
                {"type": "receive", "time": 1764324000.3, "opcode": 1, "data": "pinged"}
              ]}]}}
            """#.utf8
        ).write(to: file)
        var matching = CassetteMatching.methodAndURL
        matching.repeatsLastAnswer = true  // the session is opened twice
        let cassette = try Cassette(file: file, mode: .none, matching: matching)
        let client = CassetteReplayTests.client(try #require(URL(string: "https://chat.example")), ReplayTransport(cassette: cassette))
        let socket = try await client.webSocket(Request(.get, "ws"))
        var iterator = socket.makeAsyncIterator()
        #expect(try await iterator.next() == .text("welcome"))
        let waiting = Task {
            var iterator = socket.makeAsyncIterator()
            return try await iterator.next()
        }
        waiting.cancel()
        #expect(try await waiting.value == nil)

        let again = try await client.webSocket(Request(.get, "ws"))
        var reader = again.makeAsyncIterator()
        #expect(try await reader.next() == .text("welcome"))
        try await again.send(.text("ping me"))
        #expect(try await reader.next() == .text("pinged"))
        #expect(try await reader.next() == nil)
        #expect(again.closeCode == .normalClosure)
    }

    /// mitmproxy (reverse proxy in front of the sample server, from PyPI) records the session into
    /// its HAR export; Courier replays that file.
    @Test func aSessionRecordedByMitmproxyReplays() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let har = directory.url.appendingPathComponent("mitmproxy.har")
        var proxyURL = URL(fileURLWithPath: "/")
        try await withServer { server in
            let proxy = try await ToolServer.start(inFrontOf: server.baseURL, recordingTo: har)
            proxyURL = proxy.url
            do {
                try await TransportKind.asyncHTTPClient.with { transport in
                    let live = try await Self.converse(CassetteReplayTests.client(proxy.url, transport))
                    #expect(live.messages == [.text("héllo ✓"), .binary(Self.binary)])
                }
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
            #expect(FileManager.default.fileExists(atPath: har.path), "\(proxy.output)")
        }
        let text = try String(contentsOf: har, encoding: .utf8)
        #expect(text.contains("\"_webSocketMessages\""), "\(text.prefix(3000))")
        var matching = CassetteMatching.methodAndURL
        matching.comparesHost = false  // mitmproxy records the upstream's address
        let cassette = try Cassette(file: har, mode: .none, matching: matching)
        let replayed = try await Self.converse(CassetteReplayTests.client(proxyURL, ReplayTransport(cassette: cassette)))
        #expect(replayed.messages == [.text("héllo ✓"), .binary(Self.binary)])
        // mitmproxy keeps no close code: the replay closes normally.
        #expect(replayed.code == .normalClosure)
    }
}
