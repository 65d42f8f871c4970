import Synchronization

/// Counts requests per route (`"GET /echo/**"`), so tests can see what reached the server.
final class RequestCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func record(method: String, route: String) {
        counts.withLock { $0["\(method) \(route)", default: 0] += 1 }
    }

    func count(method: String?, route: String) -> Int {
        counts.withLock { counts in
            if let method { return counts["\(method) \(route)"] ?? 0 }
            return counts.filter { $0.key.hasSuffix(" \(route)") }.values.reduce(0, +)
        }
    }

    var all: [String: Int] { counts.withLock { $0 } }

    func reset() { counts.withLock { $0.removeAll() } }
}
