import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// Metrics through swift-metrics' `TestMetrics` and spans through swift-distributed-tracing's
/// `InMemoryTracer`, given to the client (the global bootstrap is once per process).
@Suite(.timeLimit(.minutes(5)))
struct ObservabilityTests {
    struct Held: Decodable, Sendable { let key: String }

    func echoHeader(_ reply: EchoReply, _ name: String) -> String? {
        reply.headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    @Test(arguments: TransportKind.allCases)
    func metricsCountRequestsFailuresCacheSharingRetriesBytesAndTimes(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                try await withTemporaryCache { cache, _ in
                    let metrics = TestMetrics()
                    let client = server.client(transport) {
                        $0.metricsFactory = metrics
                        $0.cache = cache
                        $0.retryPolicy = RetryPolicy().sleeping(with: RetryTests.RecordingSleeper())
                    }
                    // Two successes, one named; a 404; a retried 503.
                    let sample = try await client.send(Request<Data>(.get, "sample").named("sample"))
                    _ = try await client.send(Request<Data>(.post, "echo", body: ["a": "b"]))
                    _ = try? await client.send(Request<Data>(.get, "errors/404"))
                    _ = try await client.send(Request<Data>(.get, "flaky/m", query: ["failures": 1]))
                    // Cache: a miss, then a hit revalidated by a 304.
                    _ = try await client.send(Request<Data>(.get, "images", cache: .both))
                    _ = try await client.send(Request<Data>(.get, "images", cache: .both))
                    // Three identical requests sharing one exchange: two joins. The count of callers is
                    // cumulative: the GETs above entered exchanges too.
                    let entered = client.inFlight.enteredCount
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<3 { group.addTask { _ = try await client.send(Request<Held>(.get, "hold/m")) } }
                        await client.inFlight.waitUntilEntered(entered + 3)
                        server.release("m")
                        try await group.waitForAll()
                    }

                    func total(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
                        metrics.counterTotal(label: label, dimensions: dimensions)
                    }
                    #expect(total("courier_requests_total", [("method", "GET"), ("status_class", "2xx"), ("request", "sample")]) == 1)
                    #expect(total("courier_requests_total", [("method", "POST"), ("status_class", "2xx")]) == 1)
                    // (Totals match dimension subsets.) The named sample, the retried flaky GET, the first
                    // images GET, and the one exchange the three held GETs shared: joins are not requests.
                    #expect(total("courier_requests_total", [("method", "GET"), ("status_class", "2xx")]) == 4)
                    #expect(total("courier_requests_total", [("method", "GET"), ("status_class", "4xx")]) == 1)
                    #expect(total("courier_requests_total", [("method", "GET"), ("status_class", "5xx")]) == 1, "the failed attempt")
                    #expect(total("courier_requests_total", [("method", "GET"), ("status_class", "3xx")]) == 1, "the 304")
                    #expect(total("courier_request_failures_total", [("classification", "not_found"), ("method", "GET")]) == 1)
                    #expect(total("courier_retries_total", [("method", "GET")]) == 1)
                    #expect(total("courier_dedup_joins_total", [("method", "GET")]) == 2)
                    #expect(total("courier_cache_lookups_total", [("result", "miss"), ("method", "GET")]) == 1)
                    #expect(total("courier_cache_lookups_total", [("result", "hit"), ("method", "GET")]) == 1)
                    #expect(total("courier_cache_lookups_total", [("result", "revalidated"), ("method", "GET")]) == 1)
                    #expect(total("courier_bytes_received_total", [("method", "GET"), ("request", "sample")]) == Int64(sample.data.count))
                    #expect(total("courier_bytes_sent_total", [("method", "POST")]) == Int64(#"{"a":"b"}"#.utf8.count))
                    let durations = try metrics.expectTimer("courier_request_duration", [("method", "GET"), ("status_class", "2xx"), ("request", "sample")])
                    #expect(durations.values.count == 1 && durations.values[0] > 0)
                    #expect(durations.values[0] == Int64(sample.metrics.duration.components.seconds * 1_000_000_000 + sample.metrics.duration.components.attoseconds / 1_000_000_000))
                    #expect(!metrics.timers(label: "courier_time_to_first_byte").isEmpty)
                    // No dimension carries a URL or an id.
                    for counter in metrics.counters {
                        #expect(counter.dimensions.allSatisfy { !$0.1.contains("/") && !$0.1.contains("images") }, "\(counter.dimensions)")
                    }
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func oneSpanPerRequestWithHTTPClientAttributesAndTheContextInItsHeaders(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await withServer { other in
                try await kind.with { transport in
                    let tracer = InMemoryTracer()
                    let client = server.client(transport) {
                        $0.tracer = tracer
                        $0.retryPolicy = RetryPolicy().sleeping(with: RetryTests.RecordingSleeper())
                    }
                    let echoed = try await client.send(Request<EchoReply>(.get, "echo", query: ["token": "secret"]).named("echo"))
                    let spans = tracer.popFinishedSpans()
                    let span = try #require(spans.first)
                    #expect(spans.count == 1)
                    #expect(span.operationName == "GET echo")
                    #expect(span.kind == .client)
                    #expect(span.attributes.get("http.request.method") == .string("GET"))
                    #expect(span.attributes.get("http.response.status_code") == .int64(200))
                    #expect(span.attributes.get("server.address") == .string("127.0.0.1"))
                    #expect(span.attributes.get("server.port") == .int64(Int64(server.port)))
                    #expect(span.attributes.get("url.full") == .string("\(server.baseURL.absoluteString)/echo"), "no query: it may carry secrets")
                    #expect(span.status == nil)
                    // The span's context went out in the request's headers.
                    #expect(echoHeader(echoed.value, InMemoryTracer.spanIDKey) == span.spanID)
                    #expect(echoHeader(echoed.value, InMemoryTracer.traceIDKey) == span.traceID)

                    // Another origin gets no trace context, directly or through a redirect.
                    let elsewhere = try await client.send(Request<EchoReply>(.get, "\(other.baseURL.absoluteString)/echo"))
                    #expect(echoHeader(elsewhere.value, InMemoryTracer.spanIDKey) == nil)
                    let redirected = try await client.send(Request<EchoReply>(.get, "redirect", query: ["to": .string("\(other.baseURL.absoluteString)/echo")]))
                    #expect(echoHeader(redirected.value, InMemoryTracer.spanIDKey) == nil)

                    // A failure: error status, error.type; a retry: resend count.
                    _ = try? await client.send(Request<Data>(.get, "errors/404"))
                    let failed = try #require(tracer.popFinishedSpans().last)
                    #expect(failed.status?.code == .error)
                    #expect(failed.attributes.get("error.type") == .string("404"))
                    #expect(failed.errors.count == 1)
                    _ = try await client.send(Request<Data>(.get, "flaky/span", query: ["failures": 1]))
                    let retried = try #require(tracer.popFinishedSpans().last)
                    #expect(retried.attributes.get("http.request.resend_count") == .int64(1))
                }
            }
        }
    }

    @Test func propagationCanReachEveryOriginOrNone() async throws {
        try await withServer { server in
            try await withServer { other in
                try await TransportKind.urlSession.with { transport in
                    let tracer = InMemoryTracer()
                    let everywhere = server.client(transport) {
                        $0.tracer = tracer
                        $0.traceContextPropagation = .anyOrigin
                    }
                    let nowhere = server.client(transport) {
                        $0.tracer = tracer
                        $0.traceContextPropagation = .none
                    }
                    let far = try await everywhere.send(Request<EchoReply>(.get, "\(other.baseURL.absoluteString)/echo"))
                    #expect(echoHeader(far.value, InMemoryTracer.spanIDKey) != nil)
                    let near = try await nowhere.send(Request<EchoReply>(.get, "echo"))
                    #expect(echoHeader(near.value, InMemoryTracer.spanIDKey) == nil)
                    #expect(tracer.finishedSpans.count == 2, "spans are recorded either way")
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theSpanURLHasNoUserInfoQueryOrFragment(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let tracer = InMemoryTracer()
                let client = server.client(transport) { $0.tracer = tracer }
                let port = server.port
                let plain = "http://127.0.0.1:\(port)/echo/a@b"
                let cases = [
                    ("http://user:secret@127.0.0.1:\(port)/echo/a@b?token=secret#part", plain),
                    ("http://127.0.0.1:\(port)/echo/a@b#token=secret", plain),
                    ("http://127.0.0.1:\(port)/echo/a@b?next=http://x@y", plain),
                ]
                for (sent, expected) in cases {
                    _ = try await client.send(Request<Data>(.get, sent))
                    let span = try #require(tracer.popFinishedSpans().last)
                    #expect(span.attributes.get("url.full") == .string(expected), "\(sent)")
                    #expect(span.attributes.get("server.address") == .string("127.0.0.1"))
                    #expect(span.attributes.get("courier.request_id") != nil)
                    #expect(span.attributes.get("http.request.method") == .string("GET"))
                }
            }
        }
    }

    @Test func responsesAndErrorsCarryTheirMetrics() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let client = server.client(transport)
                let body = Data(repeating: 7, count: 1000)
                let response = try await client.send(Request<EchoReply>(.post, "echo", body: .data(body, contentType: "application/octet-stream")))
                #expect(response.metrics.attempts == 1)
                #expect(response.metrics.source == .network)
                #expect(response.metrics.bytesSent == 1000)
                #expect(response.metrics.bytesReceived == Int64(response.data.count))
                #expect(response.metrics.timeToFirstByte.map { $0 > .zero && $0 <= response.metrics.duration } == true)
                #expect(!response.metrics.joinedSharedExchange)
                do throws(CourierError) {
                    _ = try await client.send(Request<Data>(.get, "errors/404"))
                } catch {
                    #expect(error.metrics?.attempts == 1)
                    #expect(error.metrics?.source == nil)
                    #expect((error.metrics?.bytesReceived ?? 0) > 0)
                }
            }
        }
    }

    /// async-http-client would start a no-op span of its own for every request when no tracer is
    /// bootstrapped (about 30,000 instructions each): the transport's own client starts none.
    /// (This test process bootstraps no tracer.)
    @Test func theTransportsOwnClientStartsNoSpansWithoutATracer() async throws {
        let transport = AsyncHTTPClientTransport()
        #expect(InstrumentationSystem.tracer is NoOpTracer)
        #expect(transport.client.tracer == nil)
        try await transport.shutdown()
    }
}

/// A stream's record lasts as long as its body: the span ends and the duration, bytes and events
/// count when the reader has the end, a failure, or stops, never at the head.
extension ObservabilityTests {
    @Test(arguments: TransportKind.allCases)
    func aStreamIsRecordedWhenItsReaderIsDone(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let tracer = InMemoryTracer()
                let metrics = TestMetrics()
                let client = server.client(transport) {
                    $0.tracer = tracer
                    $0.metricsFactory = metrics
                }
                func total(_ label: String, _ request: String) -> Int64 {
                    metrics.counterTotal(label: label, dimensions: [("method", "GET"), ("request", request)])
                }

                // Read to the end: 5 events, every byte.
                let whole = try await client.stream(Request<Data>(.get, "events", query: ["count": 5]).named("whole"))
                #expect(tracer.popFinishedSpans().isEmpty, "the span ended at the head")
                var events = 0
                for try await _ in whole.events { events += 1 }
                #expect(events == 5)
                let ended = try #require(tracer.popFinishedSpans().first)
                #expect(ended.operationName == "GET whole")
                #expect(ended.attributes.get("courier.stream.events") == .int64(5))
                #expect(ended.attributes.get("courier.stream.stopped_by_reader") == nil)
                #expect(ended.status == nil)
                let bytes = 5 * "id: 1\nevent: tick\ndata: {\"n\": 1}\n\n".utf8.count
                #expect(ended.attributes.get("http.response.body.size") == .int64(Int64(bytes)))
                #expect(total("courier_bytes_received_total", "whole") == Int64(bytes))
                #expect(total("courier_stream_events_total", "whole") == 5)
                let durations = try metrics.expectTimer("courier_request_duration", [("method", "GET"), ("status_class", "2xx"), ("request", "whole")])
                #expect(durations.values.count == 1)

                // Dropped after 2 events: a failure, after the events that came.
                let dropped = try await client.stream(Request<Data>(.get, "events", query: ["count": 5, "dropAfter": 2]).named("dropped"))
                var arrived = 0
                do throws(CourierError) {
                    for try await _ in dropped.events { arrived += 1 }
                    Issue.record("the dropped stream ended normally")
                } catch {
                    #expect(error.kind == .connectionLost, "\(error)")
                }
                // async-http-client drops body parts it holds for a reader when the connection
                // fails before they are asked for: the second event can go with the drop.
                #expect(kind == .urlSession ? arrived == 2 : (1...2).contains(arrived), "\(arrived)")
                let failed = try #require(tracer.popFinishedSpans().first)
                #expect(failed.status?.code == .error)
                #expect(failed.attributes.get("courier.stream.events") == .int64(Int64(arrived)))
                #expect(failed.attributes.get("error.type") == .string("connection_lost"))
                #expect(metrics.counterTotal(label: "courier_request_failures_total", dimensions: [("classification", "connection_lost"), ("request", "dropped")]) == 1)

                // Stopped by the reader after one event of an endless-looking stream: not a failure.
                let long = try await client.stream(Request<Data>(.get, "events", query: ["count": 1000, "interval": 50]).named("stopped"))
                var iterator = long.events.makeAsyncIterator()
                _ = try await iterator.next()
                long.cancel()
                let stopped = try #require(tracer.popFinishedSpans().first)
                #expect(stopped.status == nil)
                #expect(stopped.attributes.get("courier.stream.stopped_by_reader") == .bool(true))
                #expect(stopped.attributes.get("courier.stream.events") == .int64(1))
                #expect(metrics.counterTotal(label: "courier_request_failures_total", dimensions: [("request", "stopped")]) == 0)
            }
        }
    }

    /// A download counts the bytes it wrote to the file, in its metrics and in the metric series.
    @Test(arguments: TransportKind.allCases)
    func aDownloadCountsTheBytesItWrote(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let metrics = TestMetrics()
                let client = server.client(transport) { $0.metricsFactory = metrics }
                let directory = try TemporaryDirectory.created()
                defer { directory.remove() }
                let file = directory.url.appendingPathComponent("items.ndjson")
                let response = try await client.download(Request<Data>(.get, "ndjson", query: ["count": 2000]).named("items"), to: file)
                let size = Int64(try Data(contentsOf: file).count)
                #expect(size > 50_000)
                #expect(response.metrics.bytesReceived == size)
                #expect(metrics.counterTotal(label: "courier_bytes_received_total", dimensions: [("request", "items")]) == size)
            }
        }
    }
}
