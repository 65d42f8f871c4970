@testable import Courier

/// Counts the callers that entered a shared exchange and wakes the tests waiting for a count or
/// for no exchange in flight: how the sharing tests act once every request is waiting.
final class InFlightProbe: InFlightWatcher {
    enum Condition { case entered(Int), empty }

    private struct State {
        var entered = 0
        var exchangesInFlight = 0
        var waiting: [(condition: Condition, continuation: CheckedContinuation<Void, Never>)] = []

        func holds(_ condition: Condition) -> Bool {
            switch condition {
            case .entered(let count): entered >= count
            case .empty: exchangesInFlight == 0
            }
        }

        /// The waiting continuations whose condition now holds, removed.
        mutating func takeReady() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            var still: [(condition: Condition, continuation: CheckedContinuation<Void, Never>)] = []
            for waiter in waiting {
                if holds(waiter.condition) { ready.append(waiter.continuation) } else { still.append(waiter) }
            }
            waiting = still
            return ready
        }
    }

    private let state = Locked(State())

    func callerEntered(exchangesInFlight: Int) {
        state.withLock { state in
            state.entered += 1
            state.exchangesInFlight = exchangesInFlight
            return state.takeReady()
        }.forEach { $0.resume() }
    }

    func exchangeEnded(exchangesInFlight: Int) {
        state.withLock { state in
            state.exchangesInFlight = exchangesInFlight
            return state.takeReady()
        }.forEach { $0.resume() }
    }

    var enteredCount: Int { state.withLock { $0.entered } }

    func wait(for condition: Condition) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.holds(condition) { return true }
                state.waiting.append((condition, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

extension InFlightExchanges {
    /// Starts counting the callers that enter an exchange; tests turn it on when they make a client.
    func startProbing() {
        _ = probe
    }

    private var probe: InFlightProbe {
        if let probe = watcher as? InFlightProbe { return probe }
        let probe = InFlightProbe()
        watcher = probe
        return probe
    }

    /// Returns once `count` callers in all have entered an exchange (led or joined).
    func waitUntilEntered(_ count: Int) async { await probe.wait(for: .entered(count)) }

    /// How many callers in all have entered an exchange (led or joined).
    var enteredCount: Int { probe.enteredCount }

    /// Returns once no exchange is in flight (each has ended, cancelled ones included).
    func waitUntilEmpty() async { await probe.wait(for: .empty) }
}
