import Courier
import Dispatch
import Foundation

/// Brings cassette files up to date a moment after their recordings, off the requests' path.
///
/// A recording only adds its entry in memory and, unless a write is already scheduled, schedules
/// one ``delay`` later on one serial queue: the entries recorded meanwhile go into the file
/// together, with one system call. Writing each exchange as it came cost more than the exchange
/// itself on loopback. The file is also brought up to date when a cassette is opened (so a
/// cassette opened on a file just recorded reads all of it), by ``Cassette/use(_:)`` and
/// ``Cassette/flush()``, and when the process exits normally.
enum CassetteWriting {
    /// How long a recording waits for others to share its write.
    static let delay = DispatchTimeInterval.milliseconds(50)

    private static let queue = DispatchQueue(label: "Courier.CassetteWriting")

    /// The cassettes that have recorded, by identity, held weakly: ``flushAll()`` writes theirs.
    private static let recording = Locked<[ObjectIdentifier: WeakCassette]>([:])

    private struct WeakCassette: Sendable {
        weak var cassette: Cassette?
    }

    /// Writes `cassette`'s new recordings ``delay`` from now.
    static func schedule(_ cassette: Cassette) {
        _ = flushAtExit
        recording.withLock { $0[ObjectIdentifier(cassette)] = WeakCassette(cassette: cassette) }
        queue.asyncAfter(deadline: .now() + delay) { cassette.scheduledWrite() }
    }

    /// Forgets a cassette that is going away (its scheduled write, which holds it, has run).
    static func forget(_ cassette: Cassette) {
        recording.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(cassette)) }
    }

    /// Writes what every cassette has recorded and not written yet. A failure stays with its
    /// cassette, which throws it from its next recording, ``Cassette/use(_:)`` or ``Cassette/flush()``.
    static func flushAll() {
        let cassettes = recording.withLock { $0.values.compactMap(\.cassette) }
        for cassette in cassettes { try? cassette.flush() }
    }

    /// Registers, once, the write of every cassette's last recordings when the process exits.
    private static let flushAtExit: Void = {
        atexit { CassetteWriting.flushAll() }
    }()
}
