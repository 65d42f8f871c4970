import Foundation

/// The process's resident memory, from `/proc/self/status` (Linux; `nil` fields elsewhere).
package struct MemoryStatus: Sendable {
    /// `VmRSS`, in KiB.
    package let residentKB: Int
    /// `VmHWM` (the peak since start or the last reset), in KiB.
    package let peakKB: Int?

    /// Reads the current figures.
    package static func read() -> MemoryStatus {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return MemoryStatus(residentKB: field("VmRSS") ?? 0, peakKB: field("VmHWM"))
    }

    /// Resets the peak (`VmHWM`) to the current resident size (Linux 4.0 and later).
    package static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    /// How far the resident memory rose above where it was while `work` ran, in MiB (its peak
    /// where the system reports one, else where it ended).
    package static func peakGrowth(of work: () async throws -> Void) async rethrows -> Double {
        let before = read()
        resetPeak()
        try await work()
        let after = read()
        return Double(max(0, (after.peakKB ?? after.residentKB) - before.residentKB)) / 1024
    }
}
