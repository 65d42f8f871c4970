/// Stops an exchange started with ``CallbackTransport/start(_:observer:completion:)``; its
/// completion is then called with a failure (unless the exchange had already ended).
package typealias TransportCancellation = @Sendable () -> Void

/// A transport that can run an exchange without a Swift task of the caller's: it starts the
/// request and calls back once with the outcome, from its own thread.
///
/// In-flight sharing uses it so that every caller waiting on a shared exchange (the one that
/// started it included) is resumed straight from the transport's completion, with no task in
/// between: a task per exchange would cost each request a hop to another thread and the task's
/// own allocations.
package protocol CallbackTransport: HTTPTransport {
    /// Starts `request`; `completion` is called exactly once, with the response or the error
    /// ``HTTPTransport/send(_:observer:)`` would have thrown.
    func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation
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
        ExchangeControl.start(request, refusedWith: configurationProblem, completion: completion) { control, mayResend in
            start(request, observer: observer, control: control, mayResend: mayResend, completion: completion)
        }
    }
}
