import Courier

/// Counts per key: the attempts `/flaky/{key}` received (and, for `ImageStoreTesting`'s routes,
/// how often `/cached/{name}` served and the bytes `/ranged/{count}` sent).
package final class Tally: Sendable {
    private let counts = Locked([String: Int]())

    package init() {}

    /// Counts one more for `key` and returns the new count (1 for the first).
    package func next(_ key: String) -> Int {
        counts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    /// Adds `amount` to the count of `key`.
    package func add(_ amount: Int, to key: String) {
        counts.withLock { $0[key, default: 0] += amount }
    }

    /// The count of `key` so far.
    package func count(_ key: String) -> Int { counts.withLock { $0[key, default: 0] } }
}
