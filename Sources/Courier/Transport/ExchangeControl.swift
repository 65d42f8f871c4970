/// Stops an exchange started in the start-and-call-back shape (``CallbackTransport``), including
/// a stop that comes before the way to stop it is known (a caller cancelled before its exchange
/// has started).
package final class ExchangeControl: Sendable {
    private struct State {
        var stop: TransportCancellation?
        var cancelled = false
    }

    private let state = Locked(State())

    package init() {}

    /// Keeps the way to stop the exchange, or uses it now if a cancellation came first.
    package func attach(_ stop: @escaping TransportCancellation) {
        let stopNow = state.withLock { state in
            state.stop = stop
            return state.cancelled
        }
        if stopNow { stop() }
    }

    /// Stops the exchange.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.stop
        }?()
    }

    /// The opening every transport's start shares: fails at once with `problem` (a policy the
    /// transport cannot apply), else runs the first try with a control that stops whichever try
    /// is under way, and whether the request may be sent once more after its connection failed
    /// before any of its answer came (an idempotent request without a body, RFC 9110 §9.2.2).
    package static func start(
        _ request: TransportRequest, refusedWith problem: CourierError?,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void,
        firstTry: (_ control: ExchangeControl, _ mayResend: Bool) -> Void
    ) -> TransportCancellation {
        if let problem {
            completion(.failure(problem.at(request.url)))
            return {}
        }
        let control = ExchangeControl()
        firstTry(control, request.method.isIdempotent && request.bodyStream == nil && (request.body?.isEmpty ?? true))
        return { control.cancel() }
    }

    /// ``HTTPTransport/send(_:observer:)`` on a transport's start: runs `start` and waits for its
    /// completion; cancelling the calling task stops the exchange, which then completes with a
    /// ``CourierError/Kind/cancelled`` error.
    package static func send(
        _ request: TransportRequest,
        _ start: (_ completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> TransportCancellation
    ) async throws -> TransportResponse {
        if Task.isCancelled { throw CourierError.cancelled(request.url) }
        let control = ExchangeControl()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                control.attach(start { continuation.resume(with: $0) })
            }
        } onCancel: {
            control.cancel()
        }
    }
}
