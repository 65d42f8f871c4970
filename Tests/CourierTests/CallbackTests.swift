import Courier
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The callback API: exactly once, on the chosen queue, cancellable.
@Suite struct CallbackTests {
    /// Collects callback invocations and the queue each ran on.
    final class Recorder<Value: Sendable>: Sendable {
        let calls = Locked<[(Result<Response<Value>, CourierError>, Int?)]>([])
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "callback.tests")

        init() { queue.setSpecific(key: key, value: 42) }

        func completion(_ signal: @escaping @Sendable () -> Void) -> APIClient.Completion<Value> {
            { result in
                self.calls.withLock { $0.append((result, DispatchQueue.getSpecific(key: self.key))) }
                signal()
            }
        }

        /// Starts `request` and returns its task once the callback has run.
        func startAndWait(_ client: APIClient, _ request: Request<Value>) async -> RequestTask {
            let called = AsyncStream<Void>.makeStream()
            let task = client.request(request, completion: completion { called.continuation.yield() })
            var iterator = called.stream.makeAsyncIterator()
            await iterator.next()
            return task
        }

        /// Waits for every block already queued on `queue`.
        func drain() async { await withCheckedContinuation { continuation in queue.async { continuation.resume() } } }
    }

    @Test(arguments: TransportKind.allCases)
    func firesOnceOnTheRequestQueue(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let recorder = Recorder<JSONValue>()
                let task = await recorder.startAndWait(client, Request<JSONValue>(.get, "sample").callback(on: recorder.queue))
                await task.waitUntilFinished()
                await recorder.drain()
                let calls = recorder.calls.withLock { $0 }
                #expect(calls.count == 1)
                #expect(calls.first?.1 == 42)
                if case .success(let response)? = calls.first?.0 {
                    #expect(response.requestID == task.id)
                    #expect(response.value["user_name"]?.stringValue == "fulana22k")
                } else {
                    Issue.record("expected a success")
                }
            }
        }
    }

    @Test func usesTheClientQueueByDefault() async throws {
        try await withServer { server in
            let recorder = Recorder<Data>()
            let client = server.client(URLSessionTransport()) { $0.callbackQueue = recorder.queue }
            await withCheckedContinuation { continuation in
                client.request(Request<Data>(.get, "sample"), completion: recorder.completion { continuation.resume() })
            }
            #expect(recorder.calls.withLock { $0.map(\.1) } == [42])
        }
    }

    @Test func errorsArriveThroughTheCallbackOnce() async throws {
        try await withServer { server in
            let recorder = Recorder<Data>()
            let client = server.client(URLSessionTransport()) { $0.callbackQueue = recorder.queue }
            let task = await recorder.startAndWait(client, Request<Data>(.get, "status/404"))
            await task.waitUntilFinished()
            await recorder.drain()
            let calls = recorder.calls.withLock { $0 }
            #expect(calls.count == 1)
            if case .failure(let error)? = calls.first?.0 { #expect(error.kind == .httpStatus(404) && error.requestID == task.id) }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancelDuringTheRequestReportsCancellationOnce(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let recorder = Recorder<Data>()
                let client = server.client(transport) { $0.callbackQueue = recorder.queue }
                let called = AsyncStream<Void>.makeStream()
                let task = client.request(Request<Data>(.get, "delay/20000"), completion: recorder.completion { called.continuation.yield() })
                await server.waitForRequests("GET", "/delay/{milliseconds}")
                task.cancel()
                task.cancel()
                var iterator = called.stream.makeAsyncIterator()
                await iterator.next()
                await task.waitUntilFinished()
                await recorder.drain()
                let calls = recorder.calls.withLock { $0 }
                #expect(calls.count == 1)
                #expect(task.isCancelled && task.isFinished)
                if case .failure(let error)? = calls.first?.0 {
                    #expect(error.isCancelled)
                    #expect(error.requestID == task.id)
                } else {
                    Issue.record("expected a cancellation")
                }
            }
        }
    }

    @Test func cancelBeforeTheRequestStartsReportsCancellationOnce() async throws {
        try await withServer { server in
            let recorder = Recorder<Data>()
            let client = server.client(URLSessionTransport()) { $0.callbackQueue = recorder.queue }
            for _ in 0..<20 {
                let task = client.request(Request<Data>(.get, "sample"), completion: recorder.completion {})
                task.cancel()
                await task.waitUntilFinished()
            }
            await recorder.drain()
            let calls = recorder.calls.withLock { $0 }
            #expect(calls.count == 20)
            #expect(calls.allSatisfy { call in if case .failure(let error) = call.0 { error.isCancelled } else { false } })
        }
    }

    @Test func cancelAfterCompletionChangesNothing() async throws {
        try await withServer { server in
            let recorder = Recorder<Data>()
            let client = server.client(URLSessionTransport()) { $0.callbackQueue = recorder.queue }
            let task = await recorder.startAndWait(client, Request<Data>(.get, "sample"))
            task.cancel()
            await task.waitUntilFinished()
            await recorder.drain()
            let calls = recorder.calls.withLock { $0 }
            #expect(calls.count == 1)
            if case .success = calls.first?.0 {} else { Issue.record("expected the success to stand") }
        }
    }

    @Test func requestIDsAreDistinctAndIncreasing() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let tasks = (0..<10).map { _ in client.request(Request<Data>(.get, "sample")) { _ in } }
            for task in tasks { await task.waitUntilFinished() }
            let ids = tasks.map(\.id)
            #expect(Set(ids).count == 10)
            #expect(ids == ids.sorted())
        }
    }
}
