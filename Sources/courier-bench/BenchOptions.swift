import BenchWorkloads
import Foundation

/// Command-line options shared by the suites.
struct BenchOptions: Sendable {
    /// Alternating rounds per pair (more rounds, less noise).
    var rounds = 12
    /// Multiplies every request count (0.1 for a quick look).
    var scale = 1.0
    /// Runs only the measurements whose name contains this text.
    var only: String?
    /// Callgrind runs per side of an instruction line; the line gives their median.
    var runs = 5
    /// The transports the hot-path lines measure (`--transport ahc` or `urlsession`; both by
    /// default), so that two processes can measure one each.
    var transports = ["ahc", "urlsession"]

    init(_ arguments: ArraySlice<String>) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--rounds":
                guard let value = iterator.next().flatMap(Int.init), value >= 1 else { throw BenchError("--rounds takes a whole number, 1 or more") }
                rounds = value
            case "--scale":
                guard let value = iterator.next().flatMap(Double.init), value.isFinite, value > 0, value <= 1_000 else {
                    throw BenchError("--scale takes a number above 0 and at most 1000")
                }
                scale = value
            case "--only": only = iterator.next()
            case "--transport":
                guard let value = iterator.next(), ["ahc", "urlsession"].contains(value) else {
                    throw BenchError("--transport takes ahc or urlsession")
                }
                transports = [value]
            case "--runs":
                guard let value = iterator.next().flatMap(Int.init), value >= 1 else { throw BenchError("--runs takes a whole number, 1 or more") }
                runs = value
            default: throw BenchError("unknown option \(argument)")
            }
        }
    }

    /// Whether the measurement called `name` is selected.
    func selects(_ name: String) -> Bool { only.map { name.contains($0) } ?? true }

    /// Whether any line of the group `prefix` is selected: `--only` is in its name, or names one
    /// of its lines (`--only overhead.instructions.urlsession` selects `overhead.instructions`).
    func selectsAny(under prefix: String) -> Bool { only.map { prefix.contains($0) || $0.hasPrefix(prefix) } ?? true }

    /// `count` scaled, at least `minimum`.
    func scaled(_ count: Int, minimum: Int = 8) -> Int { max(minimum, Int(Double(count) * scale)) }
}

/// A new empty folder for the workload `name` under the system's temporary folder; the workload
/// removes it when it ends.
func scratchDirectory(_ name: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// Prints `name`'s line for how far the process's resident memory rose while `work` ran.
func reportGrowth(_ name: String, size: some BinaryInteger, of work: () async throws -> Void) async throws {
    let growth = try await MemoryStatus.peakGrowth(of: work)
    print("\(name) mb=\(String(format: "%.1f", growth)) size=\(size)")
}
