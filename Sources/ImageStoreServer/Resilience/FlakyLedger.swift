import Courier

/// How many requests each `/flaky/{key}` has received.
final class FlakyLedger: Sendable {
    private let attempts = Locked([String: Int]())

    /// Counts a request for `key` and returns its number (1 for the first).
    func next(_ key: String) -> Int {
        attempts.withLock { attempts in
            attempts[key, default: 0] += 1
            return attempts[key, default: 0]
        }
    }

    /// Adds `amount` to the count of `key` (a test route counts bytes it sent this way).
    func add(_ amount: Int, to key: String) {
        attempts.withLock { $0[key, default: 0] += amount }
    }

    /// Requests received for `key` so far.
    func count(_ key: String) -> Int { attempts.withLock { $0[key, default: 0] } }
}
