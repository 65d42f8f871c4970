import BenchWorkloads
import Foundation

/// A reader ten times slower than an unhurried one, and the process's resident-memory growth
/// while it reads: the memory figures of `stream` and `websocket`.
struct SlowReading {
    /// What the reading took: bytes, memory growth in MiB, and the slow reader's pace in bytes a second.
    struct Outcome {
        let bytes: Int64
        let growth: Double
        let pace: Double

        /// `mb=… size=… pace=…MiB/s`, as the figures print it.
        var figures: String {
            "mb=\(String(format: "%.1f", growth)) size=\(bytes) pace=\(Int(pace / 1_048_576))MiB/s"
        }
    }

    /// Measures the unhurried speed with `probe` (which reads a tenth of the bytes and returns
    /// how many), then runs `read` at a tenth of it: `read` calls the function it gets with each
    /// piece's size, which waits as long as the slow reader would have taken, and returns the
    /// bytes it read.
    static func run(
        probe: () async throws -> Int64, read: (_ took: (Int64) async throws -> Void) async throws -> Int64
    ) async throws -> Outcome {
        let clock = ContinuousClock()
        let probeStart = clock.now
        let probed = try await probe()
        let seconds = max((clock.now - probeStart) / .seconds(1), 0.001)
        let pace = Double(probed) / seconds / 10
        let before = MemoryStatus.read()
        MemoryStatus.resetPeak()
        let start = clock.now
        var taken: Int64 = 0
        let bytes = try await read { size in
            taken += size
            let due = start + .seconds(Double(taken) / pace)
            if due > clock.now { try await Task.sleep(until: due) }  // the slow reader's pace
        }
        let peak = MemoryStatus.read()
        let growth = Double(max(0, (peak.peakKB ?? peak.residentKB) - before.residentKB)) / 1024
        return Outcome(bytes: bytes, growth: growth, pace: pace)
    }
}
