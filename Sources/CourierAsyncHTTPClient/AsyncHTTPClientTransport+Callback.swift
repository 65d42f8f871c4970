import AsyncHTTPClient
import Courier

extension AsyncHTTPClientTransport: CallbackTransport {
    /// Runs the exchange in a task of its own, started on the calling thread, and calls
    /// `completion` with its outcome.
    ///
    /// ``Courier/TransportRequest/timeout`` is a deadline for the whole exchange, the body
    /// included (async-http-client's own deadline ends when the response head arrives): an entry
    /// in ``DeadlineMonitor`` cancels the task when it passes, and the exchange fails with
    /// ``Courier/CourierError/Kind/timedOut``. The task is the exchange's alone, so the deadline
    /// can cancel it without cancelling anyone's task, and it is the only task the exchange costs.
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        let wire = wireRequest(for: request, observer: observer)
        let control = ExchangeControl()
        let deadline = ContinuousClock.now + .nanoseconds(Int64((min(request.timeout, 1e9) * 1e9).rounded()))
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
        let task: Task<Void, Never>
        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
            task = Task.immediate { await run() }
        } else {
            task = Task { await run() }
        }
        control.attach { task.cancel() }
        return { control.cancel() }
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
