import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Logging
import NIOCore
import WSClient
import WSCompression

/// `courier-bench websocket`: WebSockets through ``APIClient/webSocket(_:options:onConnect:)`` on
/// async-http-client against swift-websocket's raw `WSClient`, both on the sample server's
/// `/ws/echo` with permessage-deflate offered, each round a connection of its own:
/// - `websocket.echo`: 2,000 small text messages, each sent and its echo read before the next
///   (round trips per second, ratio);
/// - `websocket.bulk`: 32 binary messages of 1 MiB (random, so deflate saves nothing), each sent
///   and its echo read (MiB per second, ratio);
/// - `websocket.bulk.plain`: the same with permessage-deflate offered by neither side;
/// - `websocket.rss-growth`: 1 GiB from `/ws/bytes` (64 KiB messages) read at a tenth of an
///   unhurried reader's speed, and the process's resident-memory growth (server included).
struct WebSocketBenchmark {
    let options: BenchOptions

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        let transport = AsyncHTTPClientTransport()
        let client = try SmallGet.client(server.baseURL, transport, feature: "off")
        let url = "ws://127.0.0.1:\(server.port)/ws/echo"
        var logger = Logger(label: "courier-bench.websocket")
        logger.logLevel = .warning
        let quiet = logger
        let largest = 16 << 20
        var courierOptions = WebSocketOptions()
        courierOptions.maximumMessageSize = largest
        let compressed = WebSocketClientConfiguration(maxFrameSize: largest, extensions: [.perMessageDeflate(maxDecompressedFrameSize: largest)])
        let plain = WebSocketClientConfiguration(maxFrameSize: largest)

        for (name, messages) in Self.workloads(options) where options.selects(name) {
            let count = messages.count
            var courierOptions = courierOptions
            courierOptions.compression = name != "websocket.bulk.plain"
            let raw = courierOptions.compression ? compressed : plain
            let courier: @Sendable () async throws -> Void = { [courierOptions] in
                let socket = try await client.webSocket(Request(.get, "ws/echo"), options: courierOptions)
                var replies = socket.makeAsyncIterator()
                for message in messages {
                    try await socket.send(message)
                    guard try await replies.next() != nil else { throw BenchError("courier: the echo ended early") }
                }
                try await socket.close()
            }
            let rawSide: @Sendable () async throws -> Void = {
                try await WebSocketClient.connect(url: url, configuration: raw, logger: quiet) { inbound, outbound, _ in
                    var replies = inbound.messages(maxSize: largest).makeAsyncIterator()
                    for message in messages {
                        switch message {
                        case .text(let text): try await outbound.write(.text(text))
                        case .binary(let data): try await outbound.write(.binary(ByteBuffer(bytes: data)))
                        }
                        guard try await replies.next() != nil else { throw BenchError("raw: the echo ended early") }
                    }
                    try await outbound.close(.normalClosure, reason: nil)
                }
            }
            let result = try await PairedMeasurement(name: name, count: 1, concurrency: 1, rounds: max(3, options.rounds)).run(courier: courier, raw: rawSide)
            let bytes = messages.reduce(0) { $0 + Self.size($1) }
            let unit = name.hasPrefix("websocket.bulk")
                ? "courier=\(Int(result.courier * Double(bytes) / 1_048_576))MiB/s raw=\(Int(result.raw * Double(bytes) / 1_048_576))MiB/s"
                : "courier=\(Int(result.courier * Double(count)))/s raw=\(Int(result.raw * Double(count)))/s"
            print("\(name) ratio=\(String(format: "%.2f", result.ratio)) \(unit) messages=\(count)")
        }
        if options.selects("websocket.rss-growth") { try await memory(client) }
        try await transport.shutdown()
        await server.stop()
    }

    /// 1 GiB read at a tenth of an unhurried reader's speed; resident-memory growth.
    private func memory(_ client: APIClient) async throws {
        let size = Int64(options.scaled(1024, minimum: 16)) << 20
        var socketOptions = WebSocketOptions()
        socketOptions.compression = false  // the route's repeating bytes would shrink to little on the wire
        func read(_ count: Int64, _ took: (Int64) async throws -> Void) async throws -> Int64 {
            var read: Int64 = 0
            for try await message in try await client.webSocket(Request(.get, "ws/bytes/\(count)"), options: socketOptions) {
                read += Int64(Self.size(message))
                try await took(Int64(Self.size(message)))
            }
            return read
        }
        let outcome = try await SlowReading.run { try await read(size / 10) { _ in } } read: { try await read(size, $0) }
        guard outcome.bytes == size else { throw BenchError("\(outcome.bytes) of \(size) bytes") }
        print("websocket.rss-growth \(outcome.figures)")
    }

    private static func workloads(_ options: BenchOptions) -> [(String, [Courier.WebSocketMessage])] {
        var generator = SystemRandomNumberGenerator()
        let megabyte = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let echo: [Courier.WebSocketMessage] = (0..<options.scaled(2000, minimum: 50)).map { Courier.WebSocketMessage.text("message \($0) of the echo workload") }
        let bulk: [Courier.WebSocketMessage] = Array(repeating: Courier.WebSocketMessage.binary(megabyte), count: options.scaled(32, minimum: 4))
        return [("websocket.echo", echo), ("websocket.bulk", bulk), ("websocket.bulk.plain", bulk)]
    }

    private static func size(_ message: Courier.WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
