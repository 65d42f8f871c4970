/// The exchanges identical requests are sharing right now, by ``ExchangeKey``.
package final class InFlightExchanges: Sendable {
    private struct State {
        var exchanges: [ExchangeKey: SharedExchange] = [:]
        /// Callers that have taken a place in an exchange, since the client was made.
        var entered = 0
        var watchers: [Watcher] = []

        func holds(_ watcher: Watcher) -> Bool {
            switch watcher.condition {
            case .entered(let count): entered >= count
            case .empty: exchanges.isEmpty
            }
        }
    }

    private struct Watcher {
        enum Condition { case entered(Int), empty }
        let condition: Condition
        let continuation: CheckedContinuation<Void, Never>
    }

    private let state = Locked(State())

    /// Sends through the exchange already in flight for `key`, or starts one with `body`.
    /// - Returns: the response and whether the caller joined an exchange another request started.
    func send(
        _ key: ExchangeKey, observer: TransferObserver, body: SharedExchange.Body
    ) async throws -> (response: TransportResponse, joined: Bool) {
        let (exchange, place, leads, ready) = state.withLock { state -> (SharedExchange, Int, Bool, [Watcher]) in
            state.entered += 1
            let ready = state.watchers.isEmpty ? [] : Self.takeReady(&state)
            if let current = state.exchanges[key], let place = current.reserve() {
                return (current, place, false, ready)
            }
            let fresh = SharedExchange()
            state.exchanges[key] = fresh
            // A fresh exchange always has a place.
            return (fresh, fresh.reserve() ?? 0, true, ready)
        }
        ready.forEach { $0.continuation.resume() }
        if leads {
            exchange.start(body) { [weak self] in self?.remove(exchange, for: key) }
        }
        let response = try await exchange.wait(in: place, observer: observer)
        return (response, !leads)
    }

    /// Returns once `count` callers in all have entered an exchange (led or joined): tests use it
    /// to act once every request is waiting.
    package func waitUntilEntered(_ count: Int) async {
        await wait(for: .entered(count))
    }

    /// How many callers in all have entered an exchange (led or joined).
    package var enteredCount: Int { state.withLock { $0.entered } }

    /// Returns once no exchange is in flight (each has ended, cancelled ones included).
    package func waitUntilEmpty() async {
        await wait(for: .empty)
    }

    private func wait(for condition: Watcher.Condition) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let watcher = Watcher(condition: condition, continuation: continuation)
            let now = state.withLock { state in
                if state.holds(watcher) { return true }
                state.watchers.append(watcher)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private static func takeReady(_ state: inout State) -> [Watcher] {
        let snapshot = state
        let ready = state.watchers.filter { snapshot.holds($0) }
        state.watchers.removeAll { snapshot.holds($0) }
        return ready
    }

    private func remove(_ exchange: SharedExchange, for key: ExchangeKey) {
        let ready = state.withLock { state in
            if state.exchanges[key] === exchange { state.exchanges[key] = nil }
            return state.watchers.isEmpty ? [] : Self.takeReady(&state)
        }
        ready.forEach { $0.continuation.resume() }
    }
}
