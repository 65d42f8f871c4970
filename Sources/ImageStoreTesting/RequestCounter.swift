import Courier

/// Counts requests per route (`"GET /echo/**"`), so tests can see what reached the server, and
/// lets them wait for a count to be reached.
final class RequestCounter: Sendable {
    private struct Waiter {
        let method: String?
        let route: String
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var counts: [String: Int] = [:]
        var waiters: [Waiter] = []

        func count(method: String?, route: String) -> Int {
            if let method { return counts["\(method) \(route)"] ?? 0 }
            return counts.filter { $0.key.hasSuffix(" \(route)") }.values.reduce(0, +)
        }
    }

    private let state = Locked(State())

    func record(method: String, route: String) {
        let ready: [Waiter] = state.withLock { state in
            state.counts["\(method) \(route)", default: 0] += 1
            let snapshot = state
            let ready = state.waiters.filter { snapshot.count(method: $0.method, route: $0.route) >= $0.count }
            state.waiters.removeAll { snapshot.count(method: $0.method, route: $0.route) >= $0.count }
            return ready
        }
        ready.forEach { $0.continuation.resume() }
    }

    func count(method: String?, route: String) -> Int {
        state.withLock { $0.count(method: method, route: route) }
    }

    /// Returns once `route` has received at least `count` requests (of `method`, or of any method).
    func wait(method: String?, route: String, count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state in
                if state.count(method: method, route: route) >= count { return true }
                state.waiters.append(Waiter(method: method, route: route, count: count, continuation: continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    var all: [String: Int] { state.withLock { $0.counts } }

    func reset() { state.withLock { $0.counts.removeAll() } }
}
