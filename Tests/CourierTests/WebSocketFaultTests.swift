import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Crypto
import Foundation
import Testing

/// A WebSocket server of our own that breaks RFC 6455 on purpose (raw sockets, after a correct
/// handshake): each fault fails the reader with words and closes the connection with the code the
/// RFC names, which the server reads off the wire. These stand in for Autobahn's test suite
/// (Python 2 only): the sections each test covers are named on it.
@Suite(.timeLimit(.minutes(10)))
struct WebSocketFaultTests {
    /// Answers the handshake with 101, sends `frames`, then reads the client's close frame and
    /// records its code (nil when the connection ended without one).
    static func serve(_ frames: [UInt8], extensions: String? = nil, closeCode: Locked<UInt16?>) throws -> HostileServer {
        try HostileServer { connection in
            guard let head = connection.readHead() else { return }
            let accept = Self.accept(for: head)
            connection.write(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n"
                    + (extensions.map { "Sec-WebSocket-Extensions: \($0)\r\n" } ?? "") + "\r\n")
            connection.write(Data(frames))
            // The client's close frame: 0x88, a masked length (2 + reason), the mask, the code.
            let header = connection.read(2)
            guard header.count == 2, header[0] == 0x88 else { return }
            let length = Int(header[1] & 0x7F)
            let body = connection.read(4 + length)
            guard body.count == 4 + length, length >= 2 else { return }
            let mask = Array(body.prefix(4))
            let code = UInt16(body[4] ^ mask[0]) << 8 | UInt16(body[5] ^ mask[1])
            closeCode.withLock { $0 = code }
        }
    }

    /// The `Sec-WebSocket-Accept` that answers the handshake request `head` (RFC 6455 section 4.2.2).
    static func accept(for head: String) -> String {
        let key = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        return Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    static func frame(_ opcode: UInt8, fin: Bool = true, rsv: UInt8 = 0, _ payload: [UInt8]) -> [UInt8] {
        var bytes = [(fin ? 0x80 : 0) | rsv | opcode]
        if payload.count < 126 {
            bytes.append(UInt8(payload.count))
        } else {
            bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return bytes + payload
    }

    /// Each fault, the close code the client must send, and words its error must carry.
    static let faults: [(name: String, frames: [UInt8], code: UInt16, words: String)] = [
        // Autobahn 6 (UTF-8 handling).
        ("text that is not UTF-8", frame(0x1, [0xC3, 0x28]), 1007, "not UTF-8"),
        // Autobahn 6.4: a fragmented text whose pieces are not UTF-8 together.
        ("fragmented text that is not UTF-8", frame(0x1, fin: false, [0xCE]) + frame(0x0, [0xFF]), 1007, "not UTF-8"),
        // Autobahn 1 and 9 (framing): a masked frame from the server.
        ("a masked frame", [0x81, 0x82, 1, 2, 3, 4, UInt8(ascii: "h") ^ 1, UInt8(ascii: "i") ^ 2], 1002, "masked"),
        // Autobahn 3 (reserved bits).
        ("reserved bits without an extension", frame(0x1, rsv: 0x40, Array("hi".utf8)), 1002, "reserved bits"),
        ("RSV2 with permessage-deflate", frame(0x1, rsv: 0x20, Array("hi".utf8)), 1002, "reserved bits"),
        // Autobahn 4 (opcodes).
        ("an undefined opcode", frame(0x3, []), 1002, "opcode"),
        // Autobahn 5 (fragmentation) and 2 (control frames).
        ("a fragmented control frame", frame(0x9, fin: false, []), 1002, "control frame"),
        ("a control frame over 125 bytes", frame(0x9, [UInt8](repeating: 0x61, count: 126)), 1002, "control frame"),
        ("a continuation with nothing to continue", frame(0x0, Array("hi".utf8)), 1002, "continuation"),
        ("a new message inside a fragmented one", frame(0x1, fin: false, Array("a".utf8)) + frame(0x1, Array("b".utf8)), 1002, "new message"),
    ]

    @Test(arguments: faults.indices)
    func aServerFaultFailsTheReaderAndClosesWithTheRFCsCode(index: Int) async throws {
        let fault = Self.faults[index]
        let closeCode = Locked<UInt16?>(nil)
        let server = try Self.serve(fault.frames, extensions: fault.name.contains("deflate") ? "permessage-deflate" : nil, closeCode: closeCode)
        defer { server.stop() }
        try await TransportKind.asyncHTTPClient.with { transport in
            let client = APIClient(baseURL: server.baseURL, transport: transport)
            let socket = try await client.webSocket(Request(.get, "ws"))
            let error = await #expect(throws: CourierError.self, "\(fault.name)") {
                for try await _ in socket {}
            }
            #expect(error?.kind == .invalidResponse, "\(fault.name): \(error?.message ?? "")")
            #expect(error?.message.contains(fault.words) == true, "\(fault.name): \(error?.message ?? "")")
            #expect(error?.message.contains("\(fault.code)") == true, "\(fault.name): \(error?.message ?? "")")
            try await socket.close()
        }
        // The close frame reached the server before the client let the connection go.
        #expect(closeCode.withLock { $0 } == fault.code, "\(fault.name)")
    }

    /// Messages (one in fragments, a ping among them) and the closing handshake in the same write
    /// as the 101, then the end of the server's side: every message arrives whole, then the clean
    /// close.
    @Test(arguments: [false, true])
    func messagesInTheSameSegmentAsThe101Arrive(thenEnd: Bool) async throws {
        let server = try HostileServer { connection in
            guard let head = connection.readHead() else { return }
            let accept = Self.accept(for: head)
            var bytes = Data("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
            // "hello" in three fragments with a ping between them (Autobahn 5: fragmentation), then "world".
            bytes += Data(
                Self.frame(0x1, fin: false, Array("he".utf8)) + Self.frame(0x0, fin: false, Array("l".utf8)) + Self.frame(0x9, Array("ping".utf8))
                    + Self.frame(0x0, Array("lo".utf8)) + Self.frame(0x1, Array("world".utf8)) + Self.frame(0x8, [0x03, 0xE8] + Array("done".utf8)))
            connection.write(bytes)
            if thenEnd { connection.shutdownWrite() }
            _ = connection.read(8)
        }
        defer { server.stop() }
        try await TransportKind.asyncHTTPClient.with { transport in
            let socket = try await APIClient(baseURL: server.baseURL, transport: transport).webSocket(Request(.get, "ws"))
            var messages: [WebSocketMessage] = []
            for try await message in socket { messages.append(message) }
            #expect(messages == [.text("hello"), .text("world")])
            #expect(socket.closeCode == .normalClosure)
            #expect(socket.closeReason == "done")
        }
    }

    /// Backpressure: a server (our own, on a raw socket) floods 256 MiB in binary messages of
    /// 64 KiB, or of 8 MiB, while the reader has stopped after the first one. The reading from the
    /// socket stops too: the server finds the connection's buffers full (for 3 seconds on end)
    /// with at most `bound` sent, the kernel's socket buffers included (a few frames of the large
    /// size are held: swift-nio's default of ten would pass the bound), and every byte still
    /// arrives in order once the reader goes on.
    @Test(arguments: [(1 << 16, 48 << 20), (8 << 20, 64 << 20)])
    func aReaderThatStopsStopsTheReadingFromTheSocket(piece: Int, bound: Int) async throws {
        let total = 256 << 20  // far past any bound; the bench reads 1 GiB (websocket.rss-growth)
        let (stalls, stalled) = AsyncStream.makeStream(of: Int?.self)
        let server = try HostileServer { connection in
            guard let head = connection.readHead() else { return }
            connection.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(Self.accept(for: head))\r\n\r\n")
            var frame = Data([0x82, 127])  // FIN, binary, a 64-bit length
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: piece >> shift)) }
            frame.append(PatternBytes.make(piece) { UInt8($0 % 251) })
            var sent = 0
            var reported = false
            for _ in 0..<(total / piece) {
                connection.sendNoticingStall(frame) {
                    guard !reported else { return }
                    reported = true
                    stalled.yield(sent)
                }
                sent += frame.count
            }
            if !reported { stalled.yield(nil) }
            connection.write(Data([0x88, 2, 0x03, 0xE8]))  // close, 1000
            _ = connection.read(64)
        }
        defer { server.stop() }
        try await TransportKind.asyncHTTPClient.with { transport in
            var options = WebSocketOptions()
            options.compression = false
            options.pingInterval = nil
            let socket = try await APIClient(baseURL: server.baseURL, transport: transport).webSocket(Request(.get, "ws"), options: options)
            var iterator = socket.makeAsyncIterator()
            var received = 0
            if case .binary(let first)? = try await iterator.next() { received += first.count }
            var reports = stalls.makeAsyncIterator()
            let sentWhenStalled = try #require(await reports.next() ?? nil, "the server sent all 256 MiB to a reader that had stopped")
            #expect(sentWhenStalled <= bound, "\(sentWhenStalled >> 20) MiB were sent to a reader that had stopped")
            var ordered = true
            while let message = try await iterator.next() {
                guard case .binary(let data) = message else { continue }
                ordered = ordered && data.count == piece && data.first == 0 && data.last == UInt8((piece - 1) % 251)
                received += data.count
            }
            #expect(received == total && ordered)
            #expect(socket.closeCode == .normalClosure)
        }
    }

    /// A server that reads the handshake and closes without answering (a lost connection), or
    /// after half a status line (an invalid response): the handshake fails at once, not at its
    /// timeout.
    @Test(arguments: [("", ErrorClassification.connectionLost), ("HTTP/1.1 10", .invalidResponse)])
    func aServerThatClosesWithoutAnsweringFailsAtOnce(partial: String, expected: ErrorClassification) async throws {
        let server = try HostileServer { connection in
            guard connection.readHead() != nil else { return }
            connection.write(partial)
        }
        defer { server.stop() }
        try await TransportKind.asyncHTTPClient.with { transport in
            let client = APIClient(baseURL: server.baseURL, transport: transport)
            var request = Request<Data>(.get, "ws")
            request.timeout = 600
            request.retryPolicy = RetryPolicy.none
            let error = await #expect(throws: CourierError.self) { try await client.webSocket(request) }
            #expect(error?.classification == expected, "\(String(describing: error))")
        }
    }

    /// A server that completes the handshake and then never answers a ping: the app's ping times
    /// out after one interval, and the connection is lost after about two (Autobahn 2: pings and
    /// pongs).
    @Test func aPeerThatStopsAnsweringPingsIsLost() async throws {
        let server = try HostileServer { connection in
            guard let head = connection.readHead() else { return }
            let accept = Self.accept(for: head)
            connection.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n")
            connection.holdStill()
        }
        defer { server.stop() }
        try await TransportKind.asyncHTTPClient.with { transport in
            var options = WebSocketOptions()
            options.pingInterval = .seconds(1)
            let socket = try await APIClient(baseURL: server.baseURL, transport: transport).webSocket(Request(.get, "ws"), options: options)
            let unanswered = await #expect(throws: CourierError.self) { try await socket.ping() }
            #expect(unanswered?.kind == .timedOut && unanswered?.message.contains("did not answer a ping") == true, "\(String(describing: unanswered))")
            let error = await #expect(throws: CourierError.self) {
                for try await _ in socket {}
            }
            #expect(error?.kind == .connectionLost, "\(error?.message ?? "")")
        }
    }
}
