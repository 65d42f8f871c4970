import Courier
import CourierDemo
import CourierProbes
import Foundation
import Subprocess
import SystemPackage

/// Helper processes for tests whose failure mode is a crash or a hang: the risky part runs there,
/// so a crash fails one test with the signal in its message and a hang is killed at a time limit.
///
/// A child's standard input is a pipe this process holds and never writes: a `courier` helper
/// exits when it reads end-of-file (`ParentWatch`), so it dies with the test runner even when that
/// is killed. Its output goes to files, which no child can hold open against the runner.
///
/// Spawned with swift-subprocess, not Foundation's `Process`: on Linux (Swift 6.3) `Process.run`
/// reads the names of `/proc/self/fd` past the end of their records and crashes now and then
/// (swift-corelibs-foundation pull request 5472), taking the whole test run with it.
enum ChildProcess {
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
            let ending = signalled ? "crashed with signal \(status)" : "exited with status \(status)"
            let end = timedOut ? "hung: still running at the time limit, and killed (then \(ending))" : ending
            return "\(end)\n--- output\n\(output.suffix(4000))\n--- errors\n\(errors.suffix(4000))"
        }
    }

    /// Whether `pid`, a child of this process, has not exited: `waitid` without reaping it (that is
    /// swift-subprocess's to do); a child already reaped is not this process's any more (`ECHILD`).
    static func stillRuns(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
        return info.si_signo == 0  // set (SIGCHLD) only when the child has exited
    }

    /// Runs `courier-test-helper` with `arguments` to its end, within `limit`.
    static func run(helper arguments: [String], within limit: Duration) async throws -> Outcome {
        try await run(executable: testHelperExecutable(), arguments: arguments, within: limit, stoppingAfter: false, ownGroup: false) { _ in }
    }

    /// Runs `executable` with `arguments` (in `directory` when given: a tool such as schemathesis
    /// keeps files where it runs) to its end; past `limit` it is killed and reported as hung.
    ///
    /// It runs under `courier-watch` (a tool is no `courier-test-helper` command watching its standard input;
    /// see `Tests/CourierWatch/main.c`), in a process group of its own, so it ends when the test
    /// runner does, and the time limit's SIGKILL reaches it and everything it started.
    static func run(executable: URL, arguments: [String], directory: URL? = nil, within limit: Duration) async throws -> Outcome {
        try await run(
            executable: builtExecutable("courier-watch"), arguments: watched(executable, arguments), directory: directory, within: limit,
            stoppingAfter: false, ownGroup: true
        ) { _ in }
    }

    /// The arguments for `courier-watch` that run `executable` with `arguments` under it; `grace`
    /// is how many seconds the command has to exit after SIGTERM once the watcher's standard input
    /// ends.
    static func watched(_ executable: URL, _ arguments: [String], grace: Int = 10) -> [String] {
        [String(grace), executable.path] + arguments
    }

    /// Runs `courier-test-helper` with `arguments` beside `body`, which gets a way to ask whether the child
    /// still runs; when `body` returns, the child is sent SIGTERM and waited for, within `limit`
    /// in all.
    static func run(
        helper arguments: [String], within limit: Duration, beside body: (_ isRunning: @escaping @Sendable () -> Bool) async throws -> Void
    ) async throws -> Outcome {
        try await run(executable: testHelperExecutable(), arguments: arguments, within: limit, stoppingAfter: true, ownGroup: false, beside: body)
    }

    /// Runs `executable` under `courier-watch`, in a process group of its own, beside `body`; when
    /// `body` returns, the group is sent SIGTERM and the child waited for, within `limit` in all.
    static func run(
        executable: URL, arguments: [String], within limit: Duration, beside body: (_ isRunning: @escaping @Sendable () -> Bool) async throws -> Void
    ) async throws -> Outcome {
        try await run(
            executable: builtExecutable("courier-watch"), arguments: watched(executable, arguments), within: limit,
            stoppingAfter: true, ownGroup: true, beside: body)
    }

    /// Runs `executable` itself (no watcher) beside `body`; when `body` returns the child is sent
    /// SIGTERM if `stoppingAfter`, and waited for, within `limit` in all; in its own process group
    /// if `ownGroup`, which the time limit's SIGKILL then reaches whole.
    static func run(
        executable: URL, arguments: [String], directory: URL? = nil, within limit: Duration, stoppingAfter: Bool, ownGroup: Bool,
        beside body: (_ isRunning: @escaping @Sendable () -> Bool) async throws -> Void
    ) async throws -> Outcome {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("courier-child-\(UUID().uuidString)")
        let outputFile = base.appendingPathExtension("out")
        let errorFile = base.appendingPathExtension("err")
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        let output = try FileDescriptor.open(FilePath(outputFile.path), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let errors = try FileDescriptor.open(FilePath(errorFile.path), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        // Standard input: a pipe whose writing end only this process holds, closed at the end.
        let input = try FileDescriptor.pipe()
        defer { try? input.writeEnd.close() }
        let child = Locked<(pid: pid_t?, ended: Bool, timedOut: Bool)>((nil, false, false))
        let started = AsyncEvent()
        var options = PlatformOptions()
        if ownGroup { options.processGroupID = 0 }  // a group of its own, whose id is its process id
        let running = Task { [options] () throws -> TerminationStatus in
            defer {
                child.withLock { $0.ended = true }
                started.signal()  // also when it could not start
            }
            return try await Subprocess.run(
                .path(FilePath(executable.path)), arguments: Arguments(arguments), workingDirectory: directory.map { FilePath($0.path) },
                platformOptions: options, input: .fileDescriptor(input.readEnd, closeAfterSpawningProcess: true),
                output: .fileDescriptor(output, closeAfterSpawningProcess: true), error: .fileDescriptor(errors, closeAfterSpawningProcess: true)
            ) { execution in
                child.withLock { $0.pid = execution.processIdentifier.value }
                started.signal()
            }.terminationStatus
        }
        /// Sends `signal` to the child while it runs.
        @Sendable func send(_ signal: Int32) {
            if let pid = child.withLock({ $0.ended ? nil : $0.pid }) { kill(pid, signal) }
        }
        let watchdog = Task {
            try await Task.sleep(for: limit)  // a time limit, not synchronisation
            // A hang is a child that still runs at the limit. One that has exited, its report still
            // on its way to this task through a loaded pool, is not: the kernel, not the flag the
            // report sets, says which.
            if child.withLock({ state in
                state.timedOut = !state.ended && state.pid.map(Self.stillRuns) ?? true
                return state.timedOut
            }) {
                if ownGroup, let pid = child.withLock({ $0.pid }) { kill(-pid, SIGKILL) } else { send(SIGKILL) }
            }
        }
        defer { watchdog.cancel() }
        await started.wait()
        do {
            try await body { child.withLock { !$0.ended } }
        } catch {
            send(SIGKILL)
            _ = try? await running.value
            throw error
        }
        if stoppingAfter {
            if ownGroup, let pid = child.withLock({ $0.ended ? nil : $0.pid }) { kill(-pid, SIGTERM) } else { send(SIGTERM) }
        }
        let status = try await running.value
        let timedOut = child.withLock { $0.timedOut }
        let printed = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let complaints = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        switch status {
        case .exited(let code): return Outcome(status: code, signalled: false, timedOut: timedOut, output: printed, errors: complaints)
        case .signaled(let signal): return Outcome(status: signal, signalled: true, timedOut: timedOut, output: printed, errors: complaints)
        }
    }
}
