import Courier
import CourierDemo
import CourierProbes
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Logging
import Testing

/// The request pipeline as one path: a failure is reported once, after every fallback; one
/// redirect loop serves every transport, shared or not, GET or POST; waits end on cancellation.
@Suite struct PipelineTests {
    /// Records what the delegate's failure hook and the presenter were given.
    final class Reports: APIClientDelegate {
        let failures = Locked<[ErrorClassification]>([])
        let shown = Locked<[String]>([])

        func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async {
            failures.withLock { $0.append(error.classification) }
        }

        var presenter: ErrorPresenter { ErrorPresenter { [shown] error, _ in shown.withLock { $0.append(error.userMessage) } } }
    }

    func document(_ option: CacheOption) -> Request<String> {
        Request(.get, "documents/a", cache: option, serializer: .string)
    }

    /// A client with `reports` as its failure hook and presenter, a document cached, and then no
    /// server: the stopped server holds its port until the test releases it.
    func cachedThenGone(_ transport: any HTTPTransport, _ cache: ResponseCache) async throws -> (APIClient, Reports, gone: ImageStoreServer) {
        let server = try await ImageStoreServer.instrumented(.holdable())
        let reports = Reports()
        let client = server.client(transport) {
            $0.cache = cache
            $0.delegate = reports
            $0.errorPresenter = reports.presenter
        }
        try await client.putDocument("a", "kept")
        _ = try await client.send(document(.cacheOnly))
        try await server.stopHoldingPort()
        return (client, reports, server)
    }

    /// Offline mode answers from the cache: the caller gets a response, so the hook and the
    /// presenter hear of no failure. Without offline mode the same failure is reported once.
    @Test(arguments: TransportKind.allCases)
    func anAnswerFromTheOfflineCacheIsNotReportedAsAFailure(_ kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await kind.with { transport in
                let (client, reports, gone) = try await cachedThenGone(transport, cache)
                defer { gone.releasePort() }
                for option in [CacheOption.networkOnly, .both] {
                    let offline = try await client.send(document(option).offlineMode())
                    #expect(offline.source == .offlineCache && offline.value == "kept")
                }
                var answers: [ResponseSource] = []
                for try await response in client.responses(document(.both).offlineMode()) { answers.append(response.source) }
                #expect(answers == [.cache, .offlineCache])
                #expect(reports.failures.withLock { $0 }.isEmpty)
                #expect(reports.shown.withLock { $0 }.isEmpty)

                let failure = await #expect(throws: CourierError.self) { try await client.send(document(.networkOnly)) }
                #expect(failure?.classification == .cannotConnect)
                #expect(reports.failures.withLock { $0 } == [.cannotConnect])
                #expect(reports.shown.withLock { $0 } == ["The server cannot be reached. Please try again later."])
            }
        }
    }

    /// `.both` without offline mode: the cached answer arrives, then the network's failure, which
    /// the caller sees and so the hook and the presenter see, once.
    @Test(arguments: TransportKind.allCases)
    func aFailedNetworkLegAfterTheCachedAnswerIsReportedOnce(_ kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await kind.with { transport in
                let (client, reports, gone) = try await cachedThenGone(transport, cache)
                defer { gone.releasePort() }
                var answers: [ResponseSource] = []
                var iterator = client.responses(document(.both)).makeAsyncIterator()
                var thrown: CourierError?
                do throws(CourierError) {
                    while let response = try await iterator.next() { answers.append(response.source) }
                } catch {
                    thrown = error
                }
                #expect(answers == [.cache])
                #expect(thrown?.classification == .cannotConnect)
                #expect(reports.failures.withLock { $0 } == [.cannotConnect])
                #expect(reports.shown.withLock { $0 }.count == 1)
            }
        }
    }

    /// The same redirect chains through each transport as shipped and through the adapter for a
    /// transport that only sends, shared and alone: one loop, the same rules, the same counts.
    @Test(arguments: TransportKind.allCases)
    func oneRedirectLoopServesEveryTransportShape(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                for shape in [transport, DeduplicationTests.SendOnly(base: transport)] {
                    let client = server.client(shape) { $0.redirects.maximumRedirects = 2 }
                    let before = server.requestCount("GET", "/echo/**")
                    for shared in [true, false] {
                        let get = Request<EchoReply>(.get, "redirect", query: ["to": "/redirect?to=/echo/got"]).deduplicated(shared)
                        let echo = try await client.send(get)
                        #expect(echo.value.path == "/echo/got" && echo.value.method == "GET", "\(shape) shared: \(shared)")
                    }
                    for (status, method) in [(303, "GET"), (307, "POST")] {
                        let post = Request<EchoReply>(.post, "redirect", query: ["to": "/echo/posted", "status": .int(status)], body: ["a": 1])
                        let echo = try await client.send(post).value
                        #expect(echo.path == "/echo/posted" && echo.method == method, "\(shape) \(status)")
                        #expect(echo.bodyText == (method == "POST" ? #"{"a":1}"# : ""))
                    }
                    #expect(server.requestCount("GET", "/echo/**") == before + 3)
                    let tooMany = Request<Data>(.get, "redirect", query: ["to": "/redirect?to=/redirect?to=/echo/far"])
                    let failure = await #expect(throws: CourierError.self) { try await client.send(tooMany) }
                    #expect(failure?.kind == .redirectFailed, "\(shape)")
                }
            }
        }
    }

    /// Requests waiting for a credential refresh leave it when cancelled, while it goes on.
    @Test func aCancelledCallerStopsWaitingForTheRefresh() async throws {
        struct Gated: Authenticator {
            let started: AsyncEvent
            let release: AsyncEvent
            func refreshCredentials(using client: APIClient) async throws -> Bool {
                started.signal()
                await release.wait()
                return false
            }
        }
        try await withServer { server in
            let started = AsyncEvent()
            let release = AsyncEvent()
            let client = server.client(URLSessionTransport()) {
                $0.authenticationHeaders = ["access-token"]
                $0.credentialStore = CredentialStore.inMemory()
                $0.authenticator = Gated(started: started, release: release)
            }
            let waiting = Task { try await client.send(Request<Data>(.get, "status/401")) }
            await started.wait()
            waiting.cancel()
            let outcome = await waiting.result
            #expect(!release.hasFired)
            #expect((outcome.error as? CourierError)?.kind == .cancelled, "\(outcome)")
            release.signal()
            // The refresh ended: the next 401 runs one of its own, which answers at once now.
            let next = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "status/401")) }
            #expect(next?.classification == .unauthorized)
        }
    }

    /// A caller that asked for download progress and joined an exchange started without any gets
    /// the final report; the exchange reports nothing per piece.
    @Test(arguments: TransportKind.allCases)
    func aJoinerWithProgressGetsTheFinalReport(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let size = 200_000
                let request = Request<Data>(.get, "hold/quiet", query: ["size": .int(size)])
                let reports = Locked([TransferProgress]())
                let leader = Task { try await client.send(request) }
                await client.inFlight.waitUntilEntered(1)
                let joiner = Task {
                    try await client.send(request.onDownloadProgress { progress in reports.withLock { $0.append(progress) } })
                }
                await client.inFlight.waitUntilEntered(2)
                server.release("quiet")
                #expect(try await leader.value.value.count == size)
                let joined = try await joiner.value
                #expect(joined.metrics.joinedSharedExchange && joined.value.count == size)
                #expect(reports.withLock { $0 } == [TransferProgress(completed: Int64(size), total: Int64(size))])
            }
        }
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
