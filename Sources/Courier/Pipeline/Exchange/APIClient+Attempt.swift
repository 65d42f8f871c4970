import Foundation

extension APIClient {
    /// One network attempt, in one shape whatever the transport: a ``RedirectingExchange`` on the
    /// client's ``CallbackTransport``, shared with identical requests in flight when the request may
    /// share, else the caller's own; with the span's trace context when allowed. A WebSocket
    /// handshake goes to its transport's `openWebSocket` instead (no redirects, no sharing).
    func attempt(
        _ wire: TransportRequest, settings: RequestSettings, observer: TransferObserver, record: inout RequestRecord
    ) async throws -> TransportResponse {
        record.metrics.attempts += 1
        let started = ContinuousClock.now
        var traced = wire
        let traceHeaders = injectTraceContext(into: &traced, record: record)
        do {
            var joined = false
            let response: TransportResponse
            // The key is the request without its trace context, which differs for every span.
            if let upgrade = record.upgrade {
                response = try await upgrade.open(RedirectingExchange.withCookies(traced, from: cookieJar))
                cookieJar?.store(from: response.headers, for: traced.url)
            } else if sharesExchanges(settings), !RefreshCoordinator.isRefreshing, let key = ExchangeKey(wire) {
                (response, joined) = try await inFlight.send(key, observer: observer) { fanOut in
                    RedirectingExchange(
                        transport: callbackTransport, rules: redirectRules, cookies: cookieJar, request: traced, observer: fanOut,
                        traceHeaders: traceHeaders)
                }
            } else {
                let exchange = RedirectingExchange(
                    transport: callbackTransport, rules: redirectRules, cookies: cookieJar, request: traced, observer: observer,
                    traceHeaders: traceHeaders)
                response = try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        exchange.start { continuation.resume(with: $0) }
                    }
                } onCancel: {
                    exchange.cancel()
                }
            }
            // The figures, not the response: an optional response would be a copy of it.
            recordAttempt(
                &record, wire: wire, status: response.statusCode, received: response.body.count,
                headersReceivedAt: response.headersReceivedAt, joined: joined, started: started)
            return response
        } catch {
            recordAttempt(&record, wire: wire, status: nil, received: 0, headersReceivedAt: nil, joined: false, started: started)
            throw error
        }
    }

    /// Whether the request may share an identical request's exchange.
    private func sharesExchanges(_ settings: RequestSettings) -> Bool {
        if let chosen = settings.deduplication { return chosen }
        return configuration.deduplicatesRequests && (settings.method == .get || settings.method == .head)
    }
}

// MARK: - Sharing an exchange with identical requests in flight

/// The exchanges identical requests are sharing right now, by ``ExchangeKey``.
///
/// Sending through it costs one lookup (and an insert and a removal for the caller that starts
/// the exchange) under one lock: no task, no hop. A ``InFlightWatcher`` (Courier's tests watch
/// sharing with one) is told of every caller and every ended exchange; without one, nothing is.
package final class InFlightExchanges: Sendable {
    private struct State {
        var exchanges: [ExchangeKey: SharedExchange] = [:]
        var watcher: (any InFlightWatcher)?
    }

    private let state = Locked(State())

    /// Sends through the exchange already in flight for `key`, or starts the one `make` makes with
    /// the observer it is to report progress to; `observer` gets the exchange's progress from the
    /// moment the caller takes its place.
    /// - Returns: the response and whether the caller joined an exchange another request started.
    func send(
        _ key: ExchangeKey, observer: TransferObserver, make: (TransferObserver) -> RedirectingExchange
    ) async throws -> (response: TransportResponse, joined: Bool) {
        let (exchange, place, leads) = state.withLock { state -> (SharedExchange, Int, Bool) in
            // One hash of the key for the lookup and the insertion both.
            let (exchange, place, leads) = modify(&state.exchanges[key]) { entry -> (SharedExchange, Int, Bool) in
                if let current = entry, let place = current.reserve(observer: observer) { return (current, place, false) }
                let fresh = SharedExchange(key: key, table: self, first: observer)
                entry = fresh
                return (fresh, 0, true)
            }
            state.watcher?.callerEntered(exchangesInFlight: state.exchanges.count)
            return (exchange, place, leads)
        }
        if leads {
            exchange.start(make(exchange.fanOut(for: observer)))
        }
        let response = try await exchange.wait(in: place)
        return (response, !leads)
    }

    /// The watcher told of callers and ended exchanges from now on.
    var watcher: (any InFlightWatcher)? {
        get { state.withLock { $0.watcher } }
        set { state.withLock { $0.watcher = newValue } }
    }

    /// Takes `exchange` out of the table, once it has ended.
    func remove(_ exchange: SharedExchange) {
        state.withLock { state in
            // One hash of the key for the lookup and the removal both.
            if let index = state.exchanges.index(forKey: exchange.key), state.exchanges.values[index] === exchange {
                state.exchanges.remove(at: index)
            }
            state.watcher?.exchangeEnded(exchangesInFlight: state.exchanges.count)
        }
    }
}

/// Told, under the table's lock (so in order), of each caller that enters a shared exchange (led
/// or joined) and of each exchange that ends, with the number of exchanges then in flight.
protocol InFlightWatcher: Sendable {
    func callerEntered(exchangesInFlight: Int)
    func exchangeEnded(exchangesInFlight: Int)
}

/// One network exchange that identical in-flight requests wait on together.
///
/// Each caller takes a place in the exchange's ``WaitingRoom`` with its own progress observer when
/// it joins, and waits in it with its own continuation. The exchange runs apart from every
/// caller's task, on the transport's callbacks, so a caller that is cancelled just leaves: the
/// exchange goes on while anyone waits, and the room stops it when the last caller leaves.
///
/// An exchange nobody joins is the common case, and costs little: the first place is the only
/// array the exchange allocates, and the result is kept only for a caller that has not come to
/// wait yet.
final class SharedExchange: Sendable {
    /// A caller of the exchange: its progress observer, and whether it is owed the final download
    /// report when the exchange ends (every caller that joined; the first gets it from the
    /// transport).
    final class Caller: WaitingRoomGuest {
        let observer: TransferObserver
        let reportsFinal: Bool

        private init(observer: TransferObserver, reportsFinal: Bool) {
            self.observer = observer
            self.reportsFinal = reportsFinal
        }

        /// The caller of a request that watches no progress (most): one instance for all of them.
        private static let silent = Caller(observer: TransferObserver(), reportsFinal: false)

        /// A caller with `observer`: the shared silent one when it watches nothing.
        static func with(observer: TransferObserver, reportsFinal: Bool) -> Caller {
            guard observer.upload != nil || observer.download != nil else { return silent }
            return Caller(observer: observer, reportsFinal: reportsFinal)
        }

        /// The final download report of a caller that joined: the whole body. A joiner may have
        /// come after the last piece was reported, or to an exchange that reports no progress;
        /// one that had the transport's final report already gets nothing twice (its relay keeps
        /// no report after the final one).
        func arrive(with outcome: Result<TransportResponse, any Error>) {
            guard reportsFinal, let download = observer.download, case .success(let response) = outcome else { return }
            let count = Int64(response.body.count)
            download(TransferProgress(completed: count, total: count))
        }
    }

    private let room: WaitingRoom<Caller>
    /// The table the exchange leaves when it ends, and its key there (kept here rather than in a
    /// completion closure: one allocation less per exchange).
    private let table: InFlightExchanges
    let key: ExchangeKey

    /// An exchange for `key` in `table`, whose first place, number 0, is taken by a caller with
    /// `observer`.
    init(key: ExchangeKey, table: InFlightExchanges, first observer: TransferObserver) {
        room = WaitingRoom(first: Caller.with(observer: observer, reportsFinal: false), closesWhenEmpty: true)
        self.key = key
        self.table = table
    }

    /// Takes a place for a caller about to wait, with the observer its progress goes to from now
    /// on; `nil` when the exchange is being abandoned or has ended: a request made after the answer
    /// was delivered is a new request, not a copy of one in flight (the exchange leaves
    /// ``InFlightExchanges`` a moment after it ends, and a caller can arrive in that moment).
    func reserve(observer: TransferObserver) -> Int? {
        room.enter(Caller.with(observer: observer, reportsFinal: true))
    }

    /// The observer to give the transport: it reports progress only when the first caller asked
    /// for progress (an exchange nobody watches costs no report per piece), to every caller then.
    /// A caller that asked for download progress and joined an exchange that reports none gets the
    /// final report.
    func fanOut(for first: TransferObserver) -> TransferObserver {
        // Strong captures: the observer lives only as long as the exchange.
        var observer = TransferObserver()
        if first.upload != nil {
            observer.upload = { progress in self.room.guests.forEach { $0.observer.upload?(progress) } }
        }
        if first.download != nil {
            observer.download = { progress in self.room.guests.forEach { $0.observer.download?(progress) } }
        }
        return observer
    }

    /// Starts `exchange`; once it has ended and its callers have their outcome, the exchange
    /// leaves the table.
    func start(_ exchange: RedirectingExchange) {
        exchange.start { result in
            self.room.finish(with: result)
            self.table.remove(self)
        }
        room.attachStop(exchange)
    }

    /// Waits in the place `id` for the exchange's result; cancelling the caller leaves the place
    /// at once with a `CancellationError`, and the last caller to leave stops the exchange.
    func wait(in id: Int) async throws -> TransportResponse {
        try await room.wait(in: id)
    }
}

/// One exchange on the client's ``CallbackTransport``: the request and the redirects that follow
/// it under the client's ``RedirectRules``, each hop started from the previous one's completion.
/// The one redirect loop of the client, whatever the transport and whether the exchange is shared.
/// Each hop carries the cookies of the client's jar for its own URL, and each answer's
/// `Set-Cookie` fields go into the jar before the next hop starts.
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
    private let cookies: CookieJar?
    private let original: TransportRequest
    private let observer: TransferObserver
    private let traceHeaders: [String]
    private let state = Locked(State())

    init(
        transport: any CallbackTransport, rules: RedirectRules, cookies: CookieJar?, request: TransportRequest,
        observer: TransferObserver, traceHeaders: [String]
    ) {
        self.transport = transport
        self.rules = rules
        self.cookies = cookies
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

    /// `request` with the cookies `jar` holds for its URL, after any `Cookie` field of its own.
    static func withCookies(_ request: TransportRequest, from jar: CookieJar?) -> TransportRequest {
        guard let jar, let cookies = jar.header(for: request.url) else { return request }
        var request = request
        request.headers.appendCookies(cookies)
        return request
    }

    private func send(_ request: TransportRequest, hop: Int) {
        let cancellation = transport.start(Self.withCookies(request, from: cookies), observer: observer) { [self] result in
            switch result {
            case .failure:
                finish(result)
            case .success(let response):
                cookies?.store(from: response.headers, for: request.url)
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
