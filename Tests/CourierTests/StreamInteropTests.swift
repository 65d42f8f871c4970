import Courier
import Foundation
import Testing

/// Streams from servers nobody here wrote (`Scripts/stream-servers.py`, from PyPI): sse-starlette's
/// `EventSourceResponse` and FastAPI's `StreamingResponse`, on uvicorn, read on both transports.
@Suite(.timeLimit(.minutes(15)))  // on a fresh clone, a first test waits for the PyPI installs queued before its own
struct StreamInteropTests {
    static func client(_ server: ToolServer, _ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: server.url)
        configuration.cache = nil
        return APIClient(configuration: configuration, transport: transport)
    }

    /// Events with ids, multi-line data and `retry:`, dropped mid-stream twice: every event once,
    /// in order, resumed with `Last-Event-ID`; the server's 204 ends the sequence.
    @Test(arguments: TransportKind.allCases)
    func sseStarletteEventsResumeAfterDrops(kind: TransportKind) async throws {
        let server = try await ToolServer.start(python: "stream-servers.py", in: .streams)
        defer { Task { await server.stop() } }
        try await kind.with { transport in
            let client = Self.client(server, transport)
            var seen: [ServerSentEvent] = []
            let request = Request<Data>(.get, "sse", query: ["count": 7, "dropAfter": 3, "retry": 20])
            for try await event in try client.events(request, reconnection: RetryPolicy(maximumAttempts: 4)) { seen.append(event) }
            #expect(seen == (1...7).map { ServerSentEvent(type: "tick", data: "n=\($0)\nsquare=\($0 * $0)", id: "\($0)") })
        }
        await server.stop()
    }

    /// Without reconnecting, sse-starlette's stream read as it comes: every event, then the end.
    @Test(arguments: TransportKind.allCases)
    func sseStarletteEventsEndWithTheStream(kind: TransportKind) async throws {
        let server = try await ToolServer.start(python: "stream-servers.py", in: .streams)
        defer { Task { await server.stop() } }
        try await kind.with { transport in
            let stream = try await Self.client(server, transport).stream(Request(.get, "sse", query: ["count": 4]))
            #expect(stream.headers["Content-Type"]?.hasPrefix("text/event-stream") == true)
            var ids: [String] = []
            for try await event in stream.events { ids.append(event.id) }
            #expect(ids == ["1", "2", "3", "4"])
        }
        await server.stop()
    }

    struct Item: Decodable, Equatable {
        var itemId: Int
        var displayName: String
    }

    @Test(arguments: TransportKind.allCases)
    func fastAPINDJSONDecodes(kind: TransportKind) async throws {
        let server = try await ToolServer.start(python: "stream-servers.py", in: .streams)
        defer { Task { await server.stop() } }
        try await kind.with { transport in
            let stream = try await Self.client(server, transport).stream(Request(.get, "ndjson", query: ["count": 500]))
            var items: [Item] = []
            for try await item in stream.values(of: Item.self) { items.append(item) }
            #expect(items == (1...500).map { Item(itemId: $0, displayName: "item \($0)") })
        }
        await server.stop()
    }
}
