import AsyncHTTPClient
import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `courier-bench stream`: Server-Sent Events through ``APIClient/stream(_:)`` on each transport
/// against the same transport's raw API reading the same bytes and splitting them by hand
/// (async-http-client's response body sequence; a URLSession data delegate):
/// - `stream.sse.<transport>`: 100,000 small events, events per second (ratio);
/// - `stream.first-event.<transport>`: time to the first event, median of 200 streams each side;
/// - `stream.rss-growth.<transport>`: a 1 GiB byte stream read at a tenth of the speed of an
///   unhurried reader, and the process's resident-memory growth.
struct StreamBenchmark {
    let options: BenchOptions

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        let ahc = AsyncHTTPClientTransport()
        let session = URLSessionTransport()
        let rawSession = SmallGet.rawSession()
        let count = options.scaled(100_000, minimum: 100)
        let events = server.baseURL.absoluteString + "/events?count=\(count)"
        for (name, transport) in [("ahc", ahc as any HTTPTransport), ("urlsession", session)] {
            let client = try SmallGet.client(server.baseURL, transport, feature: "off")
            let courier: @Sendable () async throws -> Void = {
                var seen = 0
                for try await _ in try await client.stream(Request(.get, "events", query: ["count": .int(count)])).events { seen += 1 }
                guard seen == count else { throw BenchError("courier: \(seen) events of \(count)") }
            }
            let raw: @Sendable () async throws -> Void = {
                let seen = name == "ahc" ? try await RawEvents.count(ahc.client, events) : try await Self.rawSessionEvents(rawSession, events)
                guard seen == count else { throw BenchError("raw: \(seen) events of \(count)") }
            }
            if options.selects("stream.sse.\(name)") {
                let result = try await PairedMeasurement(name: "stream.sse.\(name)", count: 1, concurrency: 1, rounds: max(3, options.rounds)).run(courier: courier, raw: raw)
                print("stream.sse.\(name) ratio=\(String(format: "%.2f", result.ratio)) courier=\(Int(result.courier * Double(count)))/s raw=\(Int(result.raw * Double(count)))/s events=\(count)")
            }
            if options.selects("stream.first-event.\(name)") {
                try await firstEvent(name, client: client, ahc: ahc.client, session: rawSession, url: server.baseURL.absoluteString + "/events?count=1")
            }
            if options.selects("stream.rss-growth.\(name)") {
                try await memory(name, client: client)
            }
        }
        try await ahc.shutdown()
        await server.stop()
    }

    /// Median time to the first event over 200 streams each side, alternating.
    private func firstEvent(_ name: String, client: APIClient, ahc: HTTPClient, session: URLSession, url: String) async throws {
        var courier: [Duration] = []
        var raw: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<200 {
            let start = clock.now
            for try await _ in try await client.stream(Request(.get, "events", query: ["count": 1])).events { break }
            courier.append(clock.now - start)
            let rawStart = clock.now
            _ = name == "ahc" ? try await RawEvents.count(ahc, url, stopAfter: 1) : try await Self.rawSessionEvents(session, url, stopAfter: 1)
            raw.append(clock.now - rawStart)
        }
        let median = { (values: [Duration]) in values.sorted()[values.count / 2] }
        let micro = { (value: Duration) in value.nanoseconds / 1000 }
        print("stream.first-event.\(name) courier=\(micro(median(courier)))µs raw=\(micro(median(raw)))µs difference=\(micro(median(courier)) - micro(median(raw)))µs")
    }

    /// A 1 GiB stream read at a tenth of an unhurried reader's speed; resident-memory growth.
    private func memory(_ name: String, client: APIClient) async throws {
        let size = Int64(options.scaled(1024, minimum: 16)) << 20
        let outcome = try await SlowReading.run {
            var probed: Int64 = 0
            for try await piece in try await client.stream(Request(.get, "bytes/\(size / 10)")) { probed += Int64(piece.count) }
            return probed
        } read: { took in
            var read: Int64 = 0
            for try await piece in try await client.stream(Request(.get, "bytes/\(size)")) {
                read += Int64(piece.count)
                try await took(Int64(piece.count))
            }
            return read
        }
        guard outcome.bytes == size else { throw BenchError("\(outcome.bytes) of \(size) bytes") }
        print("stream.rss-growth.\(name) \(outcome.figures)")
    }


    /// Events counted by hand in a URLSession data delegate's pieces (one session for every
    /// stream, as an app would keep).
    static func rawSessionEvents(_ session: URLSession, _ url: String, stopAfter: Int = .max) async throws -> Int {
        guard let url = URL(string: url) else { throw BenchError("bad URL") }
        return try await withCheckedThrowingContinuation { continuation in
            let task = rawEventSession.dataTask(with: url)
            rawEventDelegate.start(task, stopAfter: stopAfter, continuation)
            task.resume()
        }
    }

    static let rawEventDelegate = CountingDelegate()
    static let rawEventSession = URLSession(configuration: SmallGet.rawSession().configuration, delegate: rawEventDelegate, delegateQueue: nil)

    final class CountingDelegate: NSObject, URLSessionDataDelegate, Sendable {
        struct Stream {
            var counter = RawEvents.Counter()
            var stopAfter: Int
            var continuation: CheckedContinuation<Int, any Error>?
        }

        private let streams = Locked<[Int: Stream]>([:])

        func start(_ task: URLSessionTask, stopAfter: Int, _ continuation: CheckedContinuation<Int, any Error>) {
            streams.withLock { $0[task.taskIdentifier] = Stream(stopAfter: stopAfter, continuation: continuation) }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let done = streams.withLock { streams -> (CheckedContinuation<Int, any Error>, Int)? in
                guard var stream = streams[dataTask.taskIdentifier] else { return nil }
                data.withUnsafeBytes { stream.counter.scan($0) }
                defer { streams[dataTask.taskIdentifier] = stream }
                guard stream.counter.events >= stream.stopAfter, let continuation = stream.continuation else { return nil }
                stream.continuation = nil
                return (continuation, stream.counter.events)
            }
            if let (continuation, events) = done {
                continuation.resume(returning: events)
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let stream = streams.withLock({ $0.removeValue(forKey: task.taskIdentifier) }), let continuation = stream.continuation else { return }
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: stream.counter.events) }
        }
    }
}
