import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// In-flight deduplication against the sample server: identical requests share one exchange,
/// each caller keeps its own response, and cancellation leaves the others alone.
@Suite(.timeLimit(.minutes(5)))
struct DeduplicationTests {
    struct Held: Decodable, Sendable { let key: String }

    @Test(arguments: TransportKind.allCases)
    func aHundredIdenticalGETsCauseOneRequest(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let results = try await withThrowingTaskGroup(of: (RequestID, Bool, String).self) { group in
                    for index in 0..<100 {
                        group.addTask {
                            // Callers read the one shared body as different types.
                            switch index % 3 {
                            case 0:
                                let response = try await client.send(Request<Held>(.get, "hold/one"))
                                return (response.requestID, response.metrics.joinedSharedExchange, response.value.key)
                            case 1:
                                let response = try await client.send(Request<JSONValue>(.get, "hold/one"))
                                return (response.requestID, response.metrics.joinedSharedExchange, response.value["key"]?.stringValue ?? "")
                            default:
                                let response = try await client.send(Request<Data>(.get, "hold/one"))
                                return (response.requestID, response.metrics.joinedSharedExchange, String(decoding: response.value, as: UTF8.self))
                            }
                        }
                    }
                    await client.inFlight.waitUntilEntered(100)
                    server.release("one")
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.count == 100)
                #expect(server.requestCount("GET", "/hold/{key}") == 1)
                #expect(Set(results.map(\.0)).count == 100, "each caller has its own request id")
                #expect(results.filter { !$0.1 }.count == 1, "one caller led, the others joined")
                #expect(results.allSatisfy { $0.2 == "one" || $0.2.contains(#""key":"one""#) })
            }
        }
    }

    /// An exchange leaves the in-flight table just after it delivers its answer; a request made in
    /// that moment (the next one of a loop) must go to the server, not take the old answer.
    @Test(arguments: TransportKind.allCases)
    func identicalGETsOneAfterAnotherEachReachTheServer(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let before = server.requestCount("GET", "/sample")
                var joined = 0
                for _ in 0..<300 {
                    if try await client.send(Request<Data>(.get, "sample")).metrics.joinedSharedExchange { joined += 1 }
                }
                #expect(joined == 0)
                #expect(server.requestCount("GET", "/sample") - before == 300)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingSomeCallersLeavesTheExchangeToTheOthers(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let send: @Sendable () async -> Result<Response<Held>, CourierError> = {
                    await Self.outcome(client, Request<Held>(.get, "hold/some"))
                }
                // The leader goes first, so cancelling it is known to cancel the one that started the exchange.
                let leader = Task { await send() }
                await client.inFlight.waitUntilEntered(1)
                var tasks = [leader]
                for _ in 1..<100 { tasks.append(Task { await send() }) }
                var cancelled = Set([0])
                var order = Array(1..<100).shuffled()
                // Some before they have joined, some while waiting, some as the answer arrives.
                for index in order.prefix(10) { tasks[index].cancel(); cancelled.insert(index) }
                order.removeFirst(10)
                await client.inFlight.waitUntilEntered(100)
                leader.cancel()
                for index in order.prefix(20) { tasks[index].cancel(); cancelled.insert(index) }
                order.removeFirst(20)
                server.release("some")
                for index in order.prefix(10) { tasks[index].cancel(); cancelled.insert(index) }
                var answered = 0
                for (index, task) in tasks.enumerated() {
                    switch await task.value {
                    case .success(let response):
                        #expect(response.value.key == "some")
                        answered += 1
                    case .failure(let error):
                        #expect(error.kind == .cancelled, "\(error)")
                        #expect(cancelled.contains(index), "caller \(index) was not cancelled but failed: \(error)")
                    }
                }
                #expect(answered >= 100 - cancelled.count)
                #expect(server.requestCount("GET", "/hold/{key}") == 1)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingEveryCallerCancelsTheExchange(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let tasks = (0..<5).map { _ in
                    Task { await Self.outcome(client, Request<Held>(.get, "hold/never")) }
                }
                await client.inFlight.waitUntilEntered(5)
                await server.waitForRequests("GET", "/hold/{key}")
                tasks.forEach { $0.cancel() }
                for task in tasks {
                    if case .failure(let error) = await task.value {
                        #expect(error.kind == .cancelled)
                    } else {
                        Issue.record("a cancelled caller got an answer that was never sent")
                    }
                }
                // The hold is never released: this returns only because the exchange was cancelled.
                await client.inFlight.waitUntilEmpty()
                // A later identical request starts an exchange of its own.
                server.release("never")
                let response = try await client.send(Request<Held>(.get, "hold/never"))
                #expect(!response.metrics.joinedSharedExchange)
                #expect(server.requestCount("GET", "/hold/{key}") == 2)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func everyJoinedCallerSeesTheSharedProgress(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let size: Int64 = 300_000
                let reports = (0..<3).map { _ in Locked([TransferProgress]()) }
                try await withThrowingTaskGroup(of: Response<Data>.self) { group in
                    for log in reports {
                        group.addTask {
                            try await client.send(Request<Data>(.get, "hold/progress", query: ["size": .int(Int(size))])
                                .onDownloadProgress { progress in log.withLock { $0.append(progress) } })
                        }
                    }
                    await client.inFlight.waitUntilEntered(3)
                    server.release("progress")
                    for try await response in group { #expect(response.value.count == Int(size)) }
                }
                #expect(server.requestCount("GET", "/hold/{key}") == 1)
                for log in reports {
                    let seen = log.withLock { $0 }
                    #expect(seen.last == TransferProgress(completed: size, total: size))
                    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completed < $1.completed })
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func sharingCanBeTurnedOffAndOnPerClientAndPerRequest(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let off = server.client(transport) { $0.deduplicatesRequests = false }
                let on = server.client(transport)
                // Each case holds its requests until all have arrived or joined, then counts them.
                func requests(_ key: String, _ method: String, copies: Int, joining: Int, on client: APIClient, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Int {
                    let before = server.requestCount(method, "/hold/{key}")
                    let entered = client.inFlight.enteredCount
                    async let all: Void = concurrently(copies, body)
                    await server.waitForRequests(method, "/hold/{key}", count: before + copies - joining)
                    await client.inFlight.waitUntilEntered(entered + joining + (joining > 0 ? 1 : 0))
                    server.release(key)
                    try await all
                    return server.requestCount(method, "/hold/{key}") - before
                }
                let offPerClient = try await requests("a", "GET", copies: 3, joining: 0, on: off) { _ in
                    _ = try await off.send(Request<Held>(.get, "hold/a"))
                }
                let offPerRequest = try await requests("b", "GET", copies: 3, joining: 0, on: on) { _ in
                    _ = try await on.send(Request<Held>(.get, "hold/b").deduplicated(false))
                }
                let postOptedIn = try await requests("c", "POST", copies: 3, joining: 2, on: on) { _ in
                    _ = try await on.send(Request<Held>(.post, "hold/c", body: ["same": "body"]).deduplicated())
                }
                let plainPost = try await requests("d", "POST", copies: 3, joining: 0, on: on) { _ in
                    _ = try await on.send(Request<Held>(.post, "hold/d", body: ["same": "body"]))
                }
                let otherHeaders = try await requests("e", "GET", copies: 2, joining: 0, on: on) { index in
                    _ = try await on.send(Request<Held>(.get, "hold/e").header("Accept", index == 0 ? "application/json" : "*/*"))
                }
                #expect(offPerClient == 3)
                #expect(offPerRequest == 3)
                #expect(postOptedIn == 1)
                #expect(plainPost == 3)
                #expect(otherHeaders == 2)
            }
        }
    }

    /// The response or the error of sending `request`.
    static func outcome(_ client: APIClient, _ request: Request<Held>) async -> Result<Response<Held>, CourierError> {
        do throws(CourierError) {
            return .success(try await client.send(request))
        } catch {
            return .failure(error)
        }
    }

    /// Runs `count` copies of `body` at once.
    private func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count { group.addTask { try await body(index) } }
            try await group.waitForAll()
        }
    }
}
