/// The exchanges identical requests are sharing right now, by ``ExchangeKey``.
///
/// Sending through it costs one lookup (and an insert and a removal for the caller that starts
/// the exchange) under one lock: no task, no hop. Tests that need to see callers arrive turn on
/// a ``Probe`` with ``startProbing()``; without one, nothing is counted.
package final class InFlightExchanges: Sendable {
    /// Counts the callers that entered an exchange and wakes those waiting for a count: for tests.
    private struct Probe {
        enum Condition { case entered(Int), empty }
        struct Watcher {
            let condition: Condition
            let continuation: CheckedContinuation<Void, Never>
        }
        var entered = 0
        var watchers: [Watcher] = []
    }

    private struct State {
        var exchanges: [ExchangeKey: SharedExchange] = [:]
        var probe: Probe?

        func holds(_ condition: Probe.Condition) -> Bool {
            switch condition {
            case .entered(let count): (probe?.entered ?? 0) >= count
            case .empty: exchanges.isEmpty
            }
        }

        /// The watchers whose condition now holds, removed from the probe.
        mutating func takeReady() -> [Probe.Watcher] {
            guard var probe, !probe.watchers.isEmpty else { return [] }
            let ready = probe.watchers.filter { holds($0.condition) }
            probe.watchers.removeAll { holds($0.condition) }
            self.probe = probe
            return ready
        }
    }

    private let state = Locked(State())

    /// Sends through the exchange already in flight for `key`, or starts the one `make` makes with
    /// the observer it is to report progress to; `observer` gets the exchange's progress from the
    /// moment the caller takes its place.
    /// - Returns: the response and whether the caller joined an exchange another request started.
    func send(
        _ key: ExchangeKey, observer: TransferObserver, make: (TransferObserver) -> RedirectingExchange
    ) async throws -> (response: TransportResponse, joined: Bool) {
        let (exchange, place, leads, ready) = state.withLock { state -> (SharedExchange, Int, Bool, [Probe.Watcher]) in
            var ready: [Probe.Watcher] = []
            if state.probe != nil {
                state.probe?.entered += 1
                ready = state.takeReady()
            }
            if let current = state.exchanges[key], let place = current.reserve(observer: observer) {
                return (current, place, false, ready)
            }
            let fresh = SharedExchange(key: key, table: self, first: observer)
            state.exchanges[key] = fresh
            return (fresh, 0, true, ready)
        }
        if !ready.isEmpty { ready.forEach { $0.continuation.resume() } }
        if leads {
            exchange.start(make(exchange.fanOut(for: observer)))
        }
        let response = try await exchange.wait(in: place)
        return (response, !leads)
    }

    /// Starts counting the callers that enter an exchange, for ``waitUntilEntered(_:)`` and
    /// ``enteredCount``. Tests turn it on when they make the client.
    package func startProbing() {
        state.withLock { state in
            if state.probe == nil { state.probe = Probe() }
        }
    }

    /// Returns once `count` callers in all have entered an exchange (led or joined) since
    /// ``startProbing()``: tests use it to act once every request is waiting.
    package func waitUntilEntered(_ count: Int) async {
        await wait(for: .entered(count))
    }

    /// How many callers in all have entered an exchange (led or joined) since ``startProbing()``.
    package var enteredCount: Int { state.withLock { $0.probe?.entered ?? 0 } }

    /// Returns once no exchange is in flight (each has ended, cancelled ones included); needs
    /// ``startProbing()``.
    package func waitUntilEmpty() async {
        await wait(for: .empty)
    }

    private func wait(for condition: Probe.Condition) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.holds(condition) { return true }
                if state.probe == nil { state.probe = Probe() }
                state.probe?.watchers.append(Probe.Watcher(condition: condition, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Takes `exchange` out of the table, once it has ended.
    func remove(_ exchange: SharedExchange) {
        let ready = state.withLock { state in
            if state.exchanges[exchange.key] === exchange { state.exchanges[exchange.key] = nil }
            return state.probe == nil ? [] : state.takeReady()
        }
        ready.forEach { $0.continuation.resume() }
    }
}
