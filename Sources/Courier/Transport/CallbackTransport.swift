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
