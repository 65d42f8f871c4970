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

/// A ``CallbackTransport`` that speaks to the network itself (URLSession, async-http-client): its
/// ``CallbackTransport/start(_:observer:completion:)`` is written once, here. It refuses every
/// request at once when the transport's configuration cannot work, and otherwise runs one try,
/// and a second on a new connection for an idempotent request without a body whose connection
/// closed before any of its answer came (RFC 9110 §9.2.2), through ``ExchangeControl``.
package protocol NetworkTransport: CallbackTransport {
    /// Why this transport refuses every request, or `nil` when its configuration can work.
    var configurationProblem: CourierError? { get }

    /// One try of the exchange, stopped through `control`; `mayResend` says whether a connection
    /// that closes before any answer may start the second try.
    func start(
        _ request: TransportRequest, observer: TransferObserver, control: ExchangeControl, mayResend: Bool,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    )
}

extension NetworkTransport {
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        if let configurationProblem {
            completion(.failure(configurationProblem.at(request.url)))
            return {}
        }
        let control = ExchangeControl()
        let mayResend = request.method.isIdempotent && request.bodyStream == nil && (request.body?.isEmpty ?? true)
        start(request, observer: observer, control: control, mayResend: mayResend, completion: completion)
        return { control.cancel() }
    }
}
