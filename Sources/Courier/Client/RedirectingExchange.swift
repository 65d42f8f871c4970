/// One exchange on a ``CallbackTransport``, following redirects under the client's
/// ``RedirectPolicy`` as ``APIClient/exchange(_:observer:traceHeaders:)`` does, without a task:
/// each hop is started from the previous one's completion.
final class RedirectingExchange: Sendable {
    private struct State {
        var cancellation: TransportCancellation?
        /// Which hop `cancellation` stops; a late store for an earlier hop is ignored.
        var hop = 0
        var cancelled = false
        /// The completion has been called: nothing is left to stop.
        var finished = false
    }

    private let client: APIClient
    private let transport: any CallbackTransport
    private let original: TransportRequest
    private let observer: TransferObserver
    private let traceHeaders: [String]
    private let completion: @Sendable (Result<TransportResponse, any Error>) -> Void
    private let state = Locked(State())

    init(
        client: APIClient, transport: any CallbackTransport, request: TransportRequest, observer: TransferObserver,
        traceHeaders: [String], completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) {
        self.client = client
        self.transport = transport
        original = request
        self.observer = observer
        self.traceHeaders = traceHeaders
        self.completion = completion
    }

    /// Sends the first request.
    func start() {
        send(original, hop: 0)
    }

    /// Stops the hop in flight; the completion is then called with its failure.
    func cancel() {
        let cancellation = state.withLock { state in
            state.cancelled = true
            return state.cancellation
        }
        cancellation?()
    }

    /// Calls the completion and lets go of the transport's cancellation (which can hold this exchange).
    private func finish(_ result: Result<TransportResponse, any Error>) {
        state.withLock { state in
            state.finished = true
            state.cancellation = nil
        }
        completion(result)
    }

    private func send(_ request: TransportRequest, hop: Int) {
        let cancellation = transport.start(request, observer: observer) { [self] result in
            switch result {
            case .failure:
                finish(result)
            case .success(let response):
                do {
                    guard let next = try client.redirect(after: response, to: request, from: original, hops: hop, traceHeaders: traceHeaders) else {
                        return finish(result)
                    }
                    send(next, hop: hop + 1)
                } catch {
                    finish(.failure(error))
                }
            }
        }
        let cancelNow = state.withLock { state in
            guard hop >= state.hop, !state.finished else { return false }
            state.hop = hop
            state.cancellation = cancellation
            return state.cancelled
        }
        if cancelNow { cancellation() }
    }
}
