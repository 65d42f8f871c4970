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

    /// Requests received for `key` so far.
    func count(_ key: String) -> Int { attempts.withLock { $0[key, default: 0] } }
}
