import BenchWorkloads
@testable import Courier
import CourierDemo
import CourierProbes
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Bodies read as they arrive (``APIClient/stream(_:)``, ``APIClient/events(_:reconnection:)``),
/// against the sample server's streaming routes, on both transports.
@Suite(.timeLimit(.minutes(5)))
struct StreamTests {
    @Test(arguments: TransportKind.allCases)
    func bytesArriveInOrderWithTheHeadFirst(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let stream = try await server.client(transport).stream(Request(.get, "bytes/300000", query: ["chunked": "true"]))
                #expect(stream.statusCode == 200 && stream.headers["Content-Type"] == "application/octet-stream")
                var received = Data()
                var pieces = 0
                for try await piece in stream {
                    received += piece
                    pieces += 1
                }
                #expect(received == PatternBytes.make(300_000) { UInt8($0 % 251) })
                #expect(pieces > 1, "the body came as one piece: it was gathered, not streamed")
            }
        }
    }

    struct Item: Decodable, Equatable {
        var itemId: Int
        var displayName: String
    }

    /// NDJSON decoded with the client's decoder and the seed's key rules (`item_id` → `itemId`).
    @Test(arguments: TransportKind.allCases)
    func ndjsonLinesDecodeWithTheClientsKeyRules(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let stream = try await server.client(transport).stream(Request(.get, "ndjson", query: ["count": 2000]))
                var items: [Item] = []
                for try await item in stream.values(of: Item.self) { items.append(item) }
                #expect(items.count == 2000)
                #expect(items.first == Item(itemId: 1, displayName: "item 1") && items.last == Item(itemId: 2000, displayName: "item 2000"))
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func eventsArriveWithTheirIdsAndTheStreamEndsOnA204(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                var seen: [ServerSentEvent] = []
                for try await event in try client.events(Request(.get, "events", query: ["count": 3])) { seen.append(event) }
                // Three events, then the server's end; the reconnect with Last-Event-ID: 3 gets a 204.
                #expect(seen == (1...3).map { ServerSentEvent(type: "tick", data: "{\"n\": \($0)}", id: "\($0)") })
            }
        }
    }

    /// Dropped twice mid-stream, the sequence reconnects after the server's `retry:` with
    /// `Last-Event-ID`, and every event arrives once, in order.
    @Test(arguments: TransportKind.allCases)
    func aDroppedStreamResumesFromTheLastEventID(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let request = Request<Data>(.get, "events", query: ["count": 6, "dropAfter": 2, "retry": 10])
                var ids: [String] = []
                for try await event in try client.events(request, reconnection: RetryPolicy(maximumAttempts: 4)) { ids.append(event.id) }
                #expect(ids == ["1", "2", "3", "4", "5", "6"])
            }
        }
    }

    /// Without reconnecting, a drop ends the events with a lost connection, after every event
    /// that arrived.
    @Test(arguments: TransportKind.allCases)
    func aDropEndsTheSequenceAfterEveryEventThatArrived(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let stream = try await server.client(transport).stream(Request(.get, "events", query: ["count": 6, "dropAfter": 2]))
                var ids: [String] = []
                let error = await #expect(throws: CourierError.self) {
                    for try await event in stream.events { ids.append(event.id) }
                }
                #expect(ids == ["1", "2"])
                #expect(error?.kind == .connectionLost, "\(String(describing: error))")
            }
        }
    }

    /// The README's example: an AI chat completion's tokens as they stream.
    @Test(arguments: TransportKind.allCases)
    func aChatCompletionStreamsItsTokens(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let text = try await ReadmeChat.complete("streams are here", client: server.client(transport))
                #expect(text == "You said: streams are here")
            }
        }
    }

    /// A status the client does not accept is the usual error, with its body; nothing streams.
    @Test(arguments: TransportKind.allCases)
    func aRefusedStatusIsTheUsualErrorWithItsBody(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let error = await #expect(throws: CourierError.self) { try await server.client(transport).stream(Request(.get, "status/404")) }
                #expect(error?.kind == .httpStatus(404) && error?.body.map { String(decoding: $0, as: UTF8.self).contains("404") } == true)
            }
        }
    }

    /// Cancelling the reading task ends the reading at once: while events arrive, and while the
    /// sequence waits to reconnect (the server asked for a minute).
    @Test(arguments: TransportKind.allCases)
    func cancellingTheReaderClosesTheStreamAndAReconnectWait(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                for query: Parameters in [["count": 1_000_000, "interval": 20], ["count": 10, "dropAfter": 1, "retry": 60_000]] {
                    let first = AsyncEvent()
                    let reader = Task {
                        var count = 0
                        for try await _ in try client.events(Request(.get, "events", query: query)) {
                            count += 1
                            first.signal()
                        }
                        return count
                    }
                    await first.wait()
                    reader.cancel()
                    let outcome = await reader.result
                    #expect(throws: CourierError.self) { try outcome.get() }
                    #expect((try? outcome.get()) == nil)
                    if case .failure(let error as CourierError) = outcome { #expect(error.kind == .cancelled, "\(error)") }
                }
            }
        }
    }

    /// Pieces that wait for a reader that is behind are joined, up to ``LiveBody/joinBelow`` bytes
    /// a piece, and come out whole and in order: the small chunks of one socket read are taken
    /// at once, not one wake at a time.
    @Test func piecesThatWaitAreJoinedInOrder() async throws {
        let body = LiveBody(url: URL(string: "http://127.0.0.1/stream")!)
        var sent = Data()
        for index in 0..<100 {
            let piece = Data(repeating: UInt8(index), count: 1_000)
            sent.append(piece)
            #expect(body.deliver(piece) {})
        }
        body.finish(nil)
        var sizes: [Int] = []
        var received = Data()
        while let piece = try await body.next() {
            sizes.append(piece.count)
            received.append(piece)
        }
        #expect(received == sent)
        let perPiece = LiveBody.joinBelow / 1_000 * 1_000
        #expect(sizes == [perPiece, sent.count - perPiece])
    }

    /// A reader whose pieces are always there before it asks (it never has to wait) stops as soon
    /// as its task is cancelled, with the rest of the body unread.
    @Test func aReaderThatNeverWaitsStopsWhenCancelled() async throws {
        let body = LiveBody(url: URL(string: "http://127.0.0.1/stream")!)
        // Pieces of `joinBelow` bytes each, so that they are not joined into one.
        for _ in 0..<3 { _ = body.deliver(Data(count: LiveBody.joinBelow)) {} }
        body.finish(nil)
        let reader = Task {
            var pieces = 0
            while try await body.next() != nil {
                pieces += 1
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return pieces
        }
        let outcome = await reader.result
        if case .failure(let error as CourierError) = outcome {
            #expect(error.kind == .cancelled, "\(error)")
        } else {
            Issue.record("the reader went on after its task was cancelled: \(outcome)")
        }
    }

    /// A body whose transport cannot pause keeps at most ``LiveBody/pauseAbove`` bytes in memory,
    /// plus a megabyte gathered for the disk: the rest of the backlog waits on disk, and the reader gets every byte in order across the
    /// moves between memory and disk, and the reuse of the drained file.
    @Test func aBodyThatCannotPauseKeepsItsBacklogOnDisk() async throws {
        let body = LiveBody(url: URL(string: "http://127.0.0.1/stream")!, spillsBacklog: true)
        var sent = Data()
        var number: UInt32 = 0
        func deliver(_ bytes: Int) {
            for _ in 0..<(bytes / 65_536) {
                var piece = Data(capacity: 65_536)
                for _ in 0..<(65_536 / 4) {
                    withUnsafeBytes(of: number.bigEndian) { piece.append(contentsOf: $0) }
                    number &+= 1
                }
                sent.append(piece)
                #expect(body.deliver(piece) {}, "a body that spills never asks its transport to pause")
            }
        }
        var read = Data()
        func take(_ bytes: Int) async throws {
            let goal = read.count + bytes
            while read.count < goal, let piece = try await body.next() { read.append(piece) }
        }
        deliver(5 << 20)
        #expect(body.heldInMemory <= LiveBody.pauseAbove + LiveBody.spillWriteSize)
        try await take(1_572_864)
        deliver(1 << 20)
        #expect(body.heldInMemory <= LiveBody.pauseAbove + LiveBody.spillWriteSize)
        try await take(sent.count - read.count)
        deliver(512 << 10)  // the file is drained: back to memory
        deliver(2 << 20)  // and to disk again, from the file's start
        #expect(body.heldInMemory <= LiveBody.pauseAbove + LiveBody.spillWriteSize)
        body.finish(nil)
        while let piece = try await body.next() { read.append(piece) }
        #expect(read.count == sent.count)
        #expect(read == sent, "the bytes came back out of order")
    }

    /// The same while both sides run at once: a producer thread delivers 24 MiB of numbered
    /// words while the reader takes them, now and then yielding, so pieces go to memory, to the
    /// file and to a waiting reader in every order the two can meet in.
    @Test func aBodyThatSpillsKeepsItsOrderWhileBothSidesRun() async throws {
        let body = LiveBody(url: URL(string: "http://127.0.0.1/stream")!, spillsBacklog: true)
        let words = 24 << 20 / 4
        let producer = Thread {
            var number: UInt32 = 0
            while Int(number) < words {
                var piece = Data(capacity: 16_384)
                for _ in 0..<4096 {
                    withUnsafeBytes(of: number.bigEndian) { piece.append(contentsOf: $0) }
                    number += 1
                }
                _ = body.deliver(piece) {}
            }
            body.finish(nil)
        }
        producer.start()
        var expected: UInt32 = 0
        var carry = Data()
        var pieces = 0
        while let piece = try await body.next() {
            carry.append(piece)
            let whole = carry.count / 4 * 4
            for offset in stride(from: 0, to: whole, by: 4) {
                let word = carry[carry.startIndex + offset..<carry.startIndex + offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                guard word == expected else {
                    Issue.record("word \(expected) came as \(word)")
                    return
                }
                expected += 1
            }
            carry = Data(carry.suffix(from: carry.startIndex + whole))
            pieces += 1
            if pieces % 7 == 0 { await Task.yield() }
        }
        #expect(Int(expected) == words)
    }

    /// A reconnection policy that cannot work is refused before anything is sent.
    @Test func aBadReconnectionPolicyIsRefusedBeforeSending() throws {
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:9")!)
        var negativeDelay = RetryPolicy.reconnecting, negativeMaximum = RetryPolicy.reconnecting, noAttempt = RetryPolicy.reconnecting
        negativeDelay.baseDelay = .seconds(-1)
        negativeMaximum.maximumDelay = .milliseconds(-5)
        noAttempt.maximumAttempts = 0
        for (policy, words) in [(negativeDelay, "baseDelay is negative"), (negativeMaximum, "maximumDelay is negative"), (noAttempt, "below 1")] {
            let error = #expect(throws: CourierError.self) { try client.events(Request(.get, "events"), reconnection: policy) }
            #expect(error?.kind == .invalidRequest && error?.message.contains(words) == true, "\(String(describing: error))")
        }
    }
}
