import Courier
import CourierDemo
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
            let end = timedOut ? "hung: killed at the time limit" : signalled ? "crashed with signal \(status)" : "exited with status \(status)"
            return "\(end)\n--- output\n\(output.suffix(4000))\n--- errors\n\(errors.suffix(4000))"
        }
    }

    /// Runs `courier` with `arguments` to its end, within `limit`.
    static func run(courier arguments: [String], within limit: Duration) async throws -> Outcome {
        try await run(executable: courierExecutable(), arguments: arguments, within: limit, stoppingAfter: false) { _ in }
    }

    /// Runs `executable` with `arguments` (in `directory` when given: a tool such as schemathesis
    /// keeps files where it runs) to its end; past `limit` it is killed and reported as hung.
    ///
    /// It runs under ``watcher`` (a tool is no `courier` helper watching its standard input), so
    /// it ends when the test runner does, and when it is killed at the time limit.
    static func run(executable: URL, arguments: [String], directory: URL? = nil, within limit: Duration) async throws -> Outcome {
        try await run(
            executable: TestTools.executable("python"), arguments: watched(executable, arguments), directory: directory, within: limit,
            stoppingAfter: false
        ) { _ in }
    }

    /// The arguments for a Python interpreter that run `executable` with `arguments` under
    /// ``watcher``; `grace` is how many seconds it has to exit after SIGTERM.
    static func watched(_ executable: URL, _ arguments: [String], grace: Int = 10) -> [String] {
        ["-c", watcher, String(grace), executable.path] + arguments
    }

    /// Runs the command in its arguments (after the first, the grace period in seconds) and exits as it does, with its
    /// status or by its signal. The command starts with the signal mask and handlers a fresh
    /// process has (the test runner's threads block signals, and a child inherits that) and is
    /// killed by the kernel if the watcher dies (`PR_SET_PDEATHSIG`: the time limit's SIGKILL
    /// reaches it too). When the watcher's standard input ends (the runner closed it, or died), the
    /// command gets SIGTERM, then SIGKILL after the grace period.
    static let watcher = """
        import ctypes, os, signal, subprocess, sys, threading
        def reset():
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            for number in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
                signal.signal(number, signal.SIG_DFL)
        watcher = os.getpid()
        def start():
            reset()
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            if os.getppid() != watcher:
                os._exit(1)  # the watcher died before the request took effect
        grace = int(sys.argv[1])
        child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, preexec_fn=start)
        def watch():
            while os.read(0, 65536):
                pass
            child.terminate()
            try:
                child.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                child.kill()
        threading.Thread(target=watch, daemon=True).start()
        status = child.wait()
        if status < 0:
            try:
                signal.signal(-status, signal.SIG_DFL)
            except (OSError, ValueError):
                pass  # SIGKILL and SIGSTOP have no handler to reset
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.kill(watcher, -status)
        os._exit(status)  # not sys.exit: the watching thread may be in the middle of a read
        """

    /// Runs `courier` with `arguments` beside `body`, which gets a way to ask whether the child
    /// still runs; when `body` returns, the child is sent SIGTERM and waited for, within `limit`
    /// in all.
    static func run(
        courier arguments: [String], within limit: Duration, beside body: (_ isRunning: @escaping @Sendable () -> Bool) async throws -> Void
    ) async throws -> Outcome {
        try await run(executable: courierExecutable(), arguments: arguments, within: limit, stoppingAfter: true, beside: body)
    }

    private static func run(
        executable: URL, arguments: [String], directory: URL? = nil, within limit: Duration, stoppingAfter: Bool,
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
        let running = Task { () throws -> TerminationStatus in
            defer {
                child.withLock { $0.ended = true }
                started.signal()  // also when it could not start
            }
            return try await Subprocess.run(
                .path(FilePath(executable.path)), arguments: Arguments(arguments), workingDirectory: directory.map { FilePath($0.path) },
                input: .fileDescriptor(input.readEnd, closeAfterSpawningProcess: true),
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
            if child.withLock({ state in
                state.timedOut = !state.ended
                return state.timedOut
            }) { send(SIGKILL) }
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
        if stoppingAfter { send(SIGTERM) }
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
