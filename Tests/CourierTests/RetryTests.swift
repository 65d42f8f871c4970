@testable import Courier
import CourierDemo
import CourierProbes
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Retries against the sample server's `/flaky/{key}` route, which fails a chosen number of times:
/// the server counts the attempts, an injected sleeper records the delays (nothing waits).
@Suite(.timeLimit(.minutes(5)))
struct RetryTests {
    struct Flaky: Decodable, Sendable {
        let key: String
        let attempt: Int
        let bodyLength: Int
    }

    /// Records each requested delay and returns at once (throwing if the task is cancelled).
    final class RecordingSleeper: RetrySleeper {
        let delays = Locked([Duration]())
        func sleep(for duration: Duration) async throws {
            delays.withLock { $0.append(duration) }
            try Task.checkCancellation()
        }
        var recorded: [Duration] { delays.withLock { $0 } }
    }

    /// Counts the delegate's calls per attempt.
    final class AttemptLog: APIClientDelegate {
        let sends = Locked(0)
        let received = Locked([Int]())
        let retries = Locked([Int]())
        let retrying = AsyncEvent()
        func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
            sends.withLock { $0 += 1 }
            return request
        }
        func client(_ client: APIClient, didReceive response: TransportResponse, for request: TransportRequest) async {
            received.withLock { $0.append(response.statusCode) }
        }
        func client(_ client: APIClient, willRetry request: TransportRequest, after failure: CourierError, attempt: Int, delay: Duration) async {
            retries.withLock { $0.append(attempt) }
            retrying.signal()
        }
    }

    /// A policy whose attempts decide, not the time a loaded machine takes (a budget of an hour).
    static func policy(_ sleeper: RecordingSleeper, attempts: Int = 3) -> RetryPolicy {
        RetryPolicy(maximumAttempts: attempts, baseDelay: .seconds(1), maximumDelay: .seconds(8), budget: .seconds(3600)).sleeping(with: sleeper)
    }

    @Test(arguments: TransportKind.allCases)
    func failuresBelowTheLimitAreRetriedWithBackoff(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let sleeper = RecordingSleeper()
                let log = AttemptLog()
                let client = server.client(transport) {
                    $0.retryPolicy = Self.policy(sleeper, attempts: 4)
                    $0.delegate = log
                }
                let response = try await client.send(Request<Flaky>(.get, "flaky/three", query: ["failures": 3]))
                #expect(response.value.attempt == 4)
                #expect(server.flakyAttempts("three") == 4)
                #expect(response.metrics.attempts == 4 && response.metrics.retries == 3)
                // Each delay lies between half the doubling bound (1 s, 2 s, 4 s) and all of it.
                let delays = sleeper.recorded
                #expect(delays.count == 3)
                for (index, delay) in delays.enumerated() {
                    #expect(delay >= .seconds(1 << index) / 2 && delay <= .seconds(1 << index), "retry \(index + 1) waited \(delay)")
                }
                #expect(response.metrics.backoff == delays.reduce(.zero, +))
                // Every attempt reached the delegate.
                #expect(log.sends.withLock { $0 } == 4)
                #expect(log.received.withLock { $0 } == [503, 503, 503, 200])
                #expect(log.retries.withLock { $0 } == [1, 2, 3])
            }
        }
    }

    @Test func theDelayBoundDoublesUpToTheCap() {
        let policy = RetryPolicy(baseDelay: .milliseconds(500), maximumDelay: .seconds(3))
        #expect((1...6).map(policy.delayBound(beforeRetry:)) == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3), .seconds(3)])
        for retry in 1...50 {
            let delay = policy.jitteredDelay(beforeRetry: retry)
            #expect(delay >= policy.delayBound(beforeRetry: retry) / 2 && delay <= policy.delayBound(beforeRetry: retry))
        }
        #expect(RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(30)).delayBound(beforeRetry: 500) == .seconds(30))
        // An app's huge delays: the doubled bound is past what a Duration holds, and is capped, not made.
        let huge = RetryPolicy(baseDelay: .seconds(Int64(1) << 40), maximumDelay: .seconds(Int64.max / 2))
        #expect(huge.delayBound(beforeRetry: 60) == .seconds(Int64.max / 2))
        #expect(huge.jitteredDelay(beforeRetry: 60) >= .seconds(Int64.max / 4))
    }

    @Test func theFinalErrorSaysHowManyAttemptsWereMade() async throws {
        try await withServer { server in
            try await TransportKind.urlSession.with { transport in
                let sleeper = RecordingSleeper()
                let client = server.client(transport) { $0.retryPolicy = Self.policy(sleeper) }
                do throws(CourierError) {
                    _ = try await client.send(Request<Flaky>(.get, "flaky/always", query: ["failures": 10]))
                    Issue.record("a request that always fails succeeded")
                } catch {
                    #expect(error.kind == .httpStatus(503))
                    #expect(error.metrics?.attempts == 3)
                    #expect(error.message.contains("3 attempts"), "\(error.message)")
                }
                #expect(server.flakyAttempts("always") == 3)
            }
        }
    }

    @Test func onlyIdempotentMethodsAndListedStatusesAreRetriedUnlessARequestOptsIn() async throws {
        try await withServer { server in
            try await TransportKind.asyncHTTPClient.with { transport in
                let sleeper = RecordingSleeper()
                let client = server.client(transport) { $0.retryPolicy = Self.policy(sleeper) }
                await #expect(throws: CourierError.self) {
                    _ = try await client.send(Request<Flaky>(.post, "flaky/post", query: ["failures": 1]))
                }
                #expect(server.flakyAttempts("post") == 1, "POST is not retried by default")
                let optedIn = try await client.send(
                    Request<Flaky>(.post, "flaky/post-opted", query: ["failures": 1])
                        .retry(RetryPolicy(maximumAttempts: 2, retriesAnyMethod: true).sleeping(with: sleeper)))
                #expect(optedIn.value.attempt == 2)
                for method: HTTPMethod in [.put, .delete] {
                    _ = try await client.send(Request<Flaky>(method, "flaky/\(method)", query: ["failures": 1]))
                    #expect(server.flakyAttempts("\(method)") == 2, "\(method) is idempotent")
                }
                await #expect(throws: CourierError.self) {
                    _ = try await client.send(Request<Flaky>(.get, "flaky/500", query: ["failures": 1, "status": 500]))
                }
                #expect(server.flakyAttempts("500") == 1, "500 is not in the retried statuses")
                _ = try await client.send(Request<Flaky>(.get, "flaky/429", query: ["failures": 1, "status": 429]))
                #expect(server.flakyAttempts("429") == 2)
                let once = try? await client.send(Request<Flaky>(.get, "flaky/none", query: ["failures": 1]).retry(.none))
                #expect(once == nil && server.flakyAttempts("none") == 1)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func retryAfterIsHonouredInSecondsAndAsADateWithinTheBudget(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let sleeper = RecordingSleeper()
                let client = server.client(transport) { $0.retryPolicy = Self.policy(sleeper) }
                _ = try await client.send(Request<Flaky>(.get, "flaky/seconds", query: ["failures": 1, "retry_after": 7]))
                #expect(sleeper.recorded == [.seconds(7)])
                let clock = ContinuousClock()
                let sent = clock.now
                _ = try await client.send(Request<Flaky>(.get, "flaky/date", query: ["failures": 1, "retry_after_date": 30]))
                let elapsed = clock.now - sent
                // An HTTP date has whole seconds: 30 s ahead reads as 29-30 s, less the time the
                // exchange took (seconds, when the whole suite runs on two cores).
                let fromDate = try #require(sleeper.recorded.last)
                #expect(fromDate > .seconds(29) - elapsed && fromDate <= .seconds(30), "\(fromDate) after \(elapsed)")
                // More than the budget has left: no retry, the 503 is the answer.
                let short = RetryPolicy(maximumAttempts: 3, budget: .seconds(60)).sleeping(with: sleeper)
                do throws(CourierError) {
                    _ = try await client.send(Request<Flaky>(.get, "flaky/long", query: ["failures": 1, "retry_after": 120]).retry(short))
                    Issue.record("a Retry-After beyond the budget was waited for")
                } catch {
                    #expect(error.statusCode == 503 && error.metrics?.attempts == 1)
                }
                #expect(server.flakyAttempts("long") == 1)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellationEndsTheBackoffAtOnce(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let log = AttemptLog()
                // The real sleeper, told to wait almost an hour: only cancellation can end this test.
                let client = server.client(transport) {
                    $0.retryPolicy = RetryPolicy(maximumAttempts: 3, budget: .seconds(7200))
                    $0.delegate = log
                }
                let task = Task { () async -> CourierError? in
                    do throws(CourierError) {
                        _ = try await client.send(Request<Flaky>(.get, "flaky/wait", query: ["failures": 1, "retry_after": 3000]))
                        return nil
                    } catch {
                        return error
                    }
                }
                await log.retrying.wait()
                task.cancel()
                let error = await task.value
                #expect(error?.kind == .cancelled)
                #expect(server.flakyAttempts("wait") == 1)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func connectionFailuresAreRetried(_ kind: TransportKind) async throws {
        try await kind.with { transport in
            let sleeper = RecordingSleeper()
            // Port 1 refuses connections on loopback (as in ErrorClassificationTests).
            var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:1")!)
            configuration.cache = nil
            configuration.retryPolicy = Self.policy(sleeper)
            let client = APIClient(configuration: configuration, transport: transport)
            do throws(CourierError) {
                _ = try await client.send(Request<Data>(.get, "anything"))
                Issue.record("a closed port answered")
            } catch {
                #expect(error.kind == .cannotConnect)
                #expect(error.metrics?.attempts == 3)
                #expect(sleeper.recorded.count == 2)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamedFileUploadIsReplayedWhole(_ kind: TransportKind) async throws {
        let (url, contents, directory) = try UploadTests.file(size: 300_000)
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let sleeper = RecordingSleeper()
                let client = server.client(transport)
                let upload = Request<Flaky>(.post, "flaky/upload", query: ["failures": 1], body: .multipart([.file("file", url)]))
                    .retry(RetryPolicy(maximumAttempts: 2, retriesAnyMethod: true).sleeping(with: sleeper))
                let sent = try client.transportRequest(for: upload)
                #expect(sent.bodyStream != nil)
                let response = try await client.send(upload)
                #expect(response.value.attempt == 2)
                #expect(response.value.bodyLength > contents.count, "the second attempt carried the whole file")
                #expect(response.metrics.bytesSent == 2 * sent.bodyLength)
            }
        }
    }
}

extension RetryPolicy {
    /// The same policy, waiting with `sleeper` (which records the delays and returns at once).
    func sleeping(with sleeper: any RetrySleeper) -> RetryPolicy {
        var policy = self
        policy.sleeper = sleeper
        return policy
    }
}
