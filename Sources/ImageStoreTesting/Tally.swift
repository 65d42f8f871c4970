import Courier

/// Counts per key: the attempts `/flaky/{key}` received, how often `/cached/{name}` served, the
/// bytes `/ranged/{count}` sent.
final class Tally: Sendable {
    private let counts = Locked([String: Int]())

    /// Counts one more for `key` and returns the new count (1 for the first).
    func next(_ key: String) -> Int {
        counts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    /// Adds `amount` to the count of `key`.
    func add(_ amount: Int, to key: String) {
        counts.withLock { $0[key, default: 0] += amount }
    }

    /// The count of `key` so far.
    func count(_ key: String) -> Int { counts.withLock { $0[key, default: 0] } }
}
