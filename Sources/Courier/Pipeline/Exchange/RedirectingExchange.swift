/// One exchange on the client's ``CallbackTransport``: the request and the redirects that follow
/// it under the client's ``RedirectPolicy``, each hop started from the previous one's completion.
/// The one redirect loop of the client, whatever the transport and whether the exchange is shared.
final class RedirectingExchange: Sendable {
    typealias Completion = @Sendable (Result<TransportResponse, any Error>) -> Void

    private struct State {
        var completion: Completion?
        var cancellation: TransportCancellation?
        /// Which hop `cancellation` stops; a late store for an earlier hop is ignored.
        var hop = 0
        var cancelled = false
        /// The completion has been called: nothing is left to stop.
        var finished = false
    }

    private let client: APIClient
    private let original: TransportRequest
    private let observer: TransferObserver
    private let traceHeaders: [String]
    private let state = Locked(State())

    init(client: APIClient, request: TransportRequest, observer: TransferObserver, traceHeaders: [String]) {
        self.client = client
        original = request
        self.observer = observer
        self.traceHeaders = traceHeaders
    }

    /// Sends the first request; `completion` is called exactly once, with the final response or
    /// the failure. A ``cancel()`` that came first stops the first hop as soon as it starts.
    func start(_ completion: @escaping Completion) {
        state.withLock { $0.completion = completion }
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
        let completion = state.withLock { state in
            state.finished = true
            state.cancellation = nil
            defer { state.completion = nil }
            return state.completion
        }
        completion?(result)
    }

    private func send(_ request: TransportRequest, hop: Int) {
        let cancellation = client.callbackTransport.start(request, observer: observer) { [self] result in
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
