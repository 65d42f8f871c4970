import Foundation
import Testing

/// Requests cancelled at random moments, on both transports, in a `courier-test-helper cancel-storm` process
/// of its own: a crash or a deadlock there fails one test (with the signal, or "hung") instead of
/// taking the test runner down. The child checks that every completion runs exactly once, that no
/// request fails other than by cancellation, and that no temporary or partial file is left.
@Suite(.serialized) struct CancellationStormTests {
    /// Resident memory at the end minus after the warm-up, in MiB, from a storm's report.
    static func residentGrowth(_ output: String) -> Double? {
        func field(_ name: String) -> Double? {
            output.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix(name + "=") }
                .flatMap { Double($0.dropFirst(name.count + 1)) }
        }
        guard let start = field("rss-start-mb"), let end = field("rss-end-mb") else { return nil }
        return end - start
    }

    /// 1,000 requests of every kind (small GETs, file uploads, downloads to memory and to files),
    /// through callbacks and `async`, cancelled before they start, while connecting, mid-transfer,
    /// as they complete, after they completed, or never.
    @Test(arguments: TransportKind.allCases)
    func everyCompletionRunsOnceWhateverTheMoment(kind: TransportKind) async throws {
        let outcome = try await ChildProcess.run(
            helper: ["cancel-storm", "--mode", "mixed", "--transport", kind.commandLineName, "--requests", "1000"], within: .seconds(900))
        #expect(outcome.succeeded, "\(outcome)")
        let growth = try #require(Self.residentGrowth(outcome.output), "\(outcome)")
        #expect(growth <= 10, "resident memory grew \(growth) MiB: \(outcome)")
    }

    /// File-backed multipart uploads cancelled 0-30 ms in: on Linux, URLSession given a file body
    /// used to crash the process here (swift-corelibs-foundation's `try!` in `EasyHandle`).
    @Test(arguments: TransportKind.allCases)
    func cancellingMidUploadNeverCrashes(kind: TransportKind) async throws {
        let outcome = try await ChildProcess.run(
            helper: ["cancel-storm", "--mode", "upload", "--transport", kind.commandLineName, "--requests", "200"], within: .seconds(600))
        #expect(outcome.succeeded, "\(outcome)")
    }

    /// Quick GETs through the callback API, cancelled around the moment they complete: on
    /// URLSession this used to deadlock the cancelling thread (`RequestTask.cancel()` never returned).
    @Test(arguments: TransportKind.allCases)
    func cancellingAsRequestsCompleteNeverDeadlocks(kind: TransportKind) async throws {
        let outcome = try await ChildProcess.run(
            helper: ["cancel-storm", "--mode", "race", "--transport", kind.commandLineName, "--requests", "600"], within: .seconds(300))
        #expect(outcome.succeeded, "\(outcome)")
    }
}
