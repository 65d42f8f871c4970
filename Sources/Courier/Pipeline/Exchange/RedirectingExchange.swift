import Foundation

/// One exchange on the client's ``CallbackTransport``: the request and the redirects that follow
/// it under the client's ``RedirectRules``, each hop started from the previous one's completion.
/// The one redirect loop of the client, whatever the transport and whether the exchange is shared.
final class RedirectingExchange: StoppableWork {
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

    private let transport: any CallbackTransport
    private let rules: RedirectRules
    private let original: TransportRequest
    private let observer: TransferObserver
    private let traceHeaders: [String]
    private let state = Locked(State())

    init(
        transport: any CallbackTransport, rules: RedirectRules, request: TransportRequest, observer: TransferObserver,
        traceHeaders: [String]
    ) {
        self.transport = transport
        self.rules = rules
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

    /// Cancels the exchange: what a waiting room does when its last caller leaves.
    func stop() { cancel() }

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
        let cancellation = transport.start(request, observer: observer) { [self] result in
            switch result {
            case .failure:
                finish(result)
            case .success(let response):
                do {
                    guard let next = try rules.next(after: response, to: request, from: original, hops: hop, traceHeaders: traceHeaders) else {
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

// MARK: - The redirect rules

/// What a redirect leads to, as the client's configuration says: a value a ``RedirectingExchange``
/// asks at each answer, made once per client.
struct RedirectRules: Sendable {
    /// How many redirects are followed, and the headers that never go to another origin.
    let policy: RedirectPolicy
    /// The client's authentication headers, which never go to another origin either.
    let authenticationHeaders: [String]
    /// Whether trace-context headers go with a redirect to another origin.
    let tracesAnyOrigin: Bool

    init(_ configuration: ClientConfiguration) {
        policy = configuration.redirects
        authenticationHeaders = configuration.authenticationHeaders
        tracesAnyOrigin = configuration.traceContextPropagation == .anyOrigin
    }

    /// The request a redirect leads to, or `nil` when `response` is the answer (not a redirect,
    /// or redirects are not followed). `current` is the request `response` answers, `original`
    /// the first of the chain, `hops` the redirects followed so far, `traceHeaders` the trace
    /// context the exchange added.
    func next(
        after response: TransportResponse, to current: TransportRequest, from original: TransportRequest, hops: Int,
        traceHeaders: [String]
    ) throws -> TransportRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode), policy.maximumRedirects > 0 else {
            return nil
        }
        guard hops < policy.maximumRedirects else {
            throw CourierError(
                .redirectFailed, "The server redirected more than \(policy.maximumRedirects) times; giving up.",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
        }
        // No Location: nothing to follow, the 3xx is the answer (RFC 9110 §15.4; Fetch returns it).
        guard let location = response.headers["Location"] else { return nil }
        guard let next = URL(string: location, relativeTo: current.url)?.absoluteURL,
              ["http", "https"].contains(next.scheme?.lowercased() ?? "")
        else {
            throw CourierError(
                .redirectFailed, "The server answered \(response.statusCode) without a valid http(s) Location header.",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
        }
        let originalOrigin = original.url.origin
        let crossesOrigin = next.origin != originalOrigin
        var redirected = redirected(current, to: next, status: response.statusCode, crossesOrigin: crossesOrigin)
        if !tracesAnyOrigin, crossesOrigin {
            for name in traceHeaders { redirected.headers.remove(name) }
        }
        return redirected
    }

    private func redirected(_ request: TransportRequest, to url: URL, status: Int, crossesOrigin: Bool) -> TransportRequest {
        var next = request
        next.url = url
        let becomesGET = (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            next.bodyStream = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers.remove(name)
            }
        }
        if crossesOrigin {
            for name in policy.sensitiveHeaders + authenticationHeaders {
                next.headers.remove(name)
            }
        }
        return next
    }
}
