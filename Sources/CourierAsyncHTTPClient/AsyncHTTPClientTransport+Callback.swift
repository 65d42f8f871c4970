import AsyncHTTPClient
import Courier
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport: CallbackTransport {
    /// Starts the exchange and calls `completion` with its outcome.
    ///
    /// ``Courier/TransportRequest/timeout`` is a deadline for the whole exchange, the body
    /// included; when it passes, the exchange fails with ``Courier/CourierError/Kind/timedOut``.
    /// - An exchange whose bodies are in memory (most API calls) runs on async-http-client's
    ///   delegate API (``startBuffered(_:observer:completion:)``), whose deadline covers the body.
    /// - A streamed body with upload progress, or a download to a file, runs in a task of its own
    ///   started on the calling thread (async-http-client's async API, whose deadline ends when
    ///   the response head arrives): an entry in ``DeadlineMonitor`` cancels that task when the
    ///   deadline passes. The task is the exchange's alone, so the deadline can cancel it without
    ///   cancelling anyone's task.
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        // Upload progress needs the body streamed in pieces, a download a file: both stay on the task path.
        if request.bodyStream == nil, request.downloadDestination == nil, observer.upload == nil || (request.body?.isEmpty ?? true) {
            return startBuffered(request, observer: observer, completion: completion)
        }
        let wire = wireRequest(for: request, observer: observer)
        let control = ExchangeControl()
        let deadline = ContinuousClock.now + .nanoseconds(request.timeoutNanoseconds)
        let run: @Sendable () async -> Void = {
            let entry = DeadlineMonitor.shared.register(deadline) { control.expire() }
            let result: Result<TransportResponse, any Error>
            do {
                result = .success(try await self.exchange(wire, request: request, observer: observer))
            } catch {
                result = .failure(Self.courierError(for: control.expired ? DeadlineExceeded() : error, request: request))
            }
            DeadlineMonitor.shared.remove(entry)
            completion(result)
        }
        let task = Task.startingHere { await run() }
        control.attach { task.cancel() }
        return { control.cancel() }
    }
}

extension AsyncHTTPClientTransport {
    /// Sends a request whose body is in memory and whose answer is read into memory, through
    /// async-http-client's delegate API: no Swift task, no async body stream, and the URL goes in
    /// already parsed. async-http-client's deadline covers the whole exchange, body included.
    func startBuffered(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        for field in request.headers { headers.add(name: field.name, value: field.value) }
        if decodesCompressedBodies, !request.headers.contains("Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        let wire: HTTPClient.Request
        do {
            let body = request.body.flatMap { $0.isEmpty ? nil : HTTPClient.Body.bytes($0) }
            wire = try HTTPClient.Request(url: request.url, method: .init(rawValue: request.method.rawValue), headers: headers, body: body)
        } catch {
            completion(.failure(Self.courierError(for: error, request: request)))
            return {}
        }
        let delegate = BufferingResponseDelegate(transport: self, request: request, observer: observer)
        let task = client.execute(
            request: wire, delegate: delegate, eventLoop: .indifferent, deadline: .now() + .nanoseconds(request.timeoutNanoseconds))
        task.futureResult.whenComplete { result in
            completion(result.mapError { error in
                let (headReceived, received, expected) = delegate.progress
                let cause: any Error = headReceived && !(error is CourierError)
                    ? BodyInterrupted(underlying: error, received: received, expected: expected) : error
                return Self.courierError(for: cause, request: request)
            })
        }
        return { task.cancel() }
    }
}

/// Stops an exchange on request or at its deadline, including a request that comes before the
/// way to stop it is known (a task started with `Task.immediate` runs before its handle is
/// returned; a caller can be cancelled before its exchange has started).
final class ExchangeControl: Sendable {
    private struct State {
        var stop: (@Sendable () -> Void)?
        var cancelled = false
        var expired = false
    }

    private let state = Locked(State())

    /// Whether the deadline passed.
    var expired: Bool { state.withLock { $0.expired } }

    /// Keeps the way to stop the exchange, or uses it now if a cancellation came first.
    func attach(_ stop: @escaping @Sendable () -> Void) {
        let stopNow = state.withLock { state in
            state.stop = stop
            return state.cancelled
        }
        if stopNow { stop() }
    }

    /// Stops the exchange.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.stop
        }?()
    }

    /// Stops the exchange because its deadline passed.
    func expire() {
        state.withLock { state in
            state.expired = true
            state.cancelled = true
            return state.stop
        }?()
    }
}
