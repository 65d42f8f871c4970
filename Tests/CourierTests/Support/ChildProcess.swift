import CourierDemo
import Foundation

/// A `courier` helper process for tests whose failure mode is a crash or a hang: the risky part
/// runs there, so a crash fails one test with the signal in its message and a hang is killed at a
/// time limit.
///
/// Its standard input is a pipe this process holds and never writes: the helper exits when it reads
/// end-of-file (`ParentWatch`), so it dies with the test runner even when that is killed. Its
/// output goes to files, which no child can hold open against the runner.
final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    struct Outcome: CustomStringConvertible {
        /// The exit status, or the signal number when it was killed by one.
        var status: Int32
        /// Whether a signal ended it (a crash, or the kill at the time limit).
        var signalled: Bool
        /// Whether it was killed at the time limit.
        var timedOut: Bool
        /// What it printed.
        var output: String
        /// What it printed to standard error.
        var errors: String

        /// Whether it exited with status 0.
        var succeeded: Bool { !signalled && status == 0 }

        var description: String {
            let end = timedOut ? "hung: killed at the time limit" : signalled ? "crashed with signal \(status)" : "exited with status \(status)"
            return "\(end)\n--- output\n\(output.suffix(4000))\n--- errors\n\(errors.suffix(4000))"
        }
    }

    let process = Process()
    private let input = Pipe()
    private let outputFile: URL
    private let errorFile: URL
    private let exited = AsyncEvent()

    /// Starts `courier` with `arguments`.
    convenience init(courier arguments: [String]) throws {
        try self.init(executable: courierExecutable(), arguments: arguments)
    }

    /// Starts `executable` with `arguments`, in `directory` when given (a tool such as
    /// schemathesis, which keeps files where it runs).
    init(executable: URL, arguments: [String], directory: URL? = nil) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("courier-child-\(UUID().uuidString)")
        outputFile = base.appendingPathExtension("out")
        errorFile = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: outputFile)
        try? FileManager.default.removeItem(at: errorFile)
    }

    /// Waits for the child to exit; past `limit` it is killed and reported as hung.
    func finish(within limit: Duration) async -> Outcome {
        let exited = exited
        let inTime = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await exited.wait(); return true }
            group.addTask { try? await Task.sleep(for: limit); return false }  // a time limit, not synchronisation
            let first = await group.next() ?? false
            if !first { kill(process.processIdentifier, SIGKILL) }
            group.cancelAll()
            return first
        }
        await exited.wait()
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return Outcome(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal, timedOut: !inTime,
            output: output, errors: errors)
    }

    /// Runs `courier` with `arguments` to its end, within `limit`.
    static func run(courier arguments: [String], within limit: Duration) async throws -> Outcome {
        try await ChildProcess(courier: arguments).finish(within: limit)
    }
}
