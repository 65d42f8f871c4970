import Courier
import CourierDemo
import CourierProbes
import Foundation
import Subprocess
import SystemPackage
import Testing

/// Helper processes die with their parent, so a crashed test runner never leaves one holding its
/// pipes open (which used to make `swift test` wait forever).
struct ChildProcessTests {
    /// bash stands in for a test runner that dies: it starts `courier-test-helper cache-writer` with standard
    /// input on a pipe only bash holds, prints the writer's process id, and waits on its own
    /// standard input (so it too ends if this test process dies first).
    @Test func aHelperExitsWhenItsParentIsKilled() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await Self.expectChildToDieWithItsParent(
            #"exec 3> >(exec "$0" cache-writer --directory "$1"); echo "$!"; read -r _"#, [try testHelperExecutable().path, directory.url.path],
            readyWhen: "ready\n")
    }

    /// The same for a tool (a Python program, schemathesis), which bash starts under
    /// `courier-watch`: the tool, a shell that prints its process id and then becomes `sleep`,
    /// ends with bash.
    @Test func aToolExitsWhenItsParentIsKilled() async throws {
        let tool = ChildProcess.watched(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo $$; exec sleep 600"])
        try await Self.expectChildToDieWithItsParent(#"exec 3> >(exec "$0" "$@"); read -r _"#, [try builtExecutable("courier-watch").path] + tool, readyWhen: "\n")
    }

    /// The watcher's command starts with no signal blocked and no handler set to ignore, whatever
    /// the test runner's threads had (a child inherits its parent's mask), and its standard input
    /// is empty. (glibc keeps its two internal signals, 32 and 33, out of any program's reach.)
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads the mask from Linux's /proc"))
    func aWatchedToolStartsWithAFreshSignalMask() async throws {
        // grep reads its own state, exec'd by the shell: not the shell's, which blocks every
        // signal for a moment whenever it forks.
        let outcome = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exec grep -E '^Sig(Blk|Ign):' /proc/self/status"], within: .seconds(120))
        #expect(outcome.succeeded, "\(outcome)")
        let masks = Dictionary(uniqueKeysWithValues: outcome.output.split(separator: "\n").map { line in
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            return (parts.first ?? "", UInt64(parts.last ?? "", radix: 16) ?? .max)
        })
        let glibcInternal: UInt64 = 0x1_8000_0000
        #expect(masks["SigBlk"] == 0, "\(outcome)")
        #expect(masks["SigIgn"].map { $0 & ~glibcInternal } == 0, "\(outcome)")
        let input = try await ChildProcess.run(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "wc -c"], within: .seconds(120))
        #expect(input.succeeded && input.output.trimmingCharacters(in: .whitespaces) == "0\n", "\(input)")
        // A parent that ignores signals (a shell's trap) hands that on through exec; the watcher's
        // command gets every handler back at its default. (swift-subprocess, which starts the
        // watcher above, clears the mask itself; a shell or a Python parent may not.)
        let ignoring = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", #"trap '' INT TERM HUP; exec "$0" 10 /bin/sh -c 'exec grep -E "^SigIgn:" /proc/self/status'"#, try builtExecutable("courier-watch").path],
            within: .seconds(120), stoppingAfter: false, ownGroup: true
        ) { _ in }
        let ignored = ignoring.output.split(separator: ":").last.map { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) ?? .max }
        #expect(ignoring.succeeded && ignored.map { $0 & ~glibcInternal } == 0, "\(ignoring)")
    }

    /// A watched tool's exit status and signal come back as the tool's own; a command that
    /// cannot run says so.
    @Test func theWatcherExitsAsItsToolDoes() async throws {
        let fine = try await ChildProcess.run(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exit 3"], within: .seconds(120))
        #expect(!fine.signalled && fine.status == 3 && !fine.timedOut, "\(fine)")
        let missing = try await ChildProcess.run(executable: URL(fileURLWithPath: "/nonexistent/tool"), arguments: [], within: .seconds(120))
        #expect(!missing.signalled && missing.status == 127 && missing.errors.contains("cannot run /nonexistent/tool"), "\(missing)")
        // The watcher itself, watched, with a grace period that is no number.
        let usage = try await ChildProcess.run(executable: try builtExecutable("courier-watch"), arguments: ["soon", "/bin/true"], within: .seconds(120))
        #expect(usage.status == 64 && usage.errors.contains("usage: courier-watch"), "\(usage)")
    }

    /// Runs bash with `script` and `arguments`; its standard output is this test's pipe, and the
    /// child it starts writes there too, its process id first, then `readyWhen`. Kills bash with
    /// SIGKILL, then expects end-of-file on the pipe (every process holding it has exited) and
    /// that process gone.
    private static func expectChildToDieWithItsParent(_ script: String, _ arguments: [String], readyWhen marker: String) async throws {
        // bash's standard output and input are pipes of this test's own, spawned with swift-subprocess.
        let output = try FileDescriptor.pipe()
        let input = try FileDescriptor.pipe()
        defer { try? input.writeEnd.close() }
        let parentID = Locked<pid_t?>(nil)
        let started = AsyncEvent()
        let parent = Task {
            defer { started.signal() }
            _ = try await Subprocess.run(
                .path("/bin/bash"), arguments: Arguments(["-c", script] + arguments),
                input: .fileDescriptor(input.readEnd, closeAfterSpawningProcess: true),
                output: .fileDescriptor(output.writeEnd, closeAfterSpawningProcess: true), error: .discarded
            ) { execution in
                parentID.withLock { $0 = execution.processIdentifier.value }
                started.signal()
            }
        }
        await started.wait()
        let bash = try #require(parentID.withLock { $0 }, "bash did not start")
        let reader = PipeReader(FileHandle(fileDescriptor: output.readEnd.rawValue, closeOnDealloc: true))
        #expect(await reader.waitFor(marker, within: .seconds(120)), "the child did not start: \(reader.text)")
        let child = try #require(reader.text.split(separator: "\n").first.flatMap { pid_t($0) }, "\(reader.text)")
        #expect(kill(child, 0) == 0)

        kill(bash, SIGKILL)
        _ = try await parent.value
        #expect(await reader.waitForEnd(within: .seconds(20)), "the child outlived its parent")
        let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
        #expect(state == nil || state == "Z", "child \(child) is still running: state \(state ?? "?")")
        if state != nil && state != "Z" { kill(child, SIGKILL) }
    }

    /// A child's crash is reported with its signal, a hang is killed at the time limit (the tool
    /// with its watcher: the hung `sleep` holds a FIFO this test reads, and it ends), and what it
    /// printed comes back.
    @Test func aCrashAndAHangAreReportedNotSuffered() async throws {
        let crash = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo before; echo oops >&2; kill -SEGV $$"],
            // A limit, not a wait: the full suite's load once kept this crash's report past 60 s.
            within: .seconds(180))
        #expect(crash.signalled && crash.status == SIGSEGV && !crash.timedOut, "\(crash)")
        #expect(crash.output == "before\n" && crash.errors == "oops\n")
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let fifo = directory.url.appendingPathComponent("held")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Opened for reading first (without waiting for a writer), so the sleeper's open does not block.
        let held = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(held >= 0)
        let hang = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exec 4>\"$0\"; echo holding; exec sleep 600", fifo.path],
            within: .seconds(10))
        #expect(hang.timedOut && hang.signalled && hang.status == SIGKILL && hang.output == "holding\n", "\(hang)")
        _ = fcntl(held, F_SETFL, 0)  // now wait for the sleeper's end of the FIFO to close
        let reader = PipeReader(FileHandle(fileDescriptor: held, closeOnDealloc: true))
        #expect(await reader.waitForEnd(within: .seconds(20)), "the hung command outlived its watcher")
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: Sendable {
    private let collected = Locked("")
    private let changed = Locked<[AsyncEvent]>([])
    private let ended = AsyncEvent()

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while case let data = handle.availableData, !data.isEmpty {  // what has arrived; empty at end-of-file
                collected.withLock { $0 += String(decoding: data, as: UTF8.self) }
                for event in changed.withLock({ events in defer { events = [] }; return events }) { event.signal() }
            }
            ended.signal()
            for event in changed.withLock({ events in defer { events = [] }; return events }) { event.signal() }
        }
        thread.start()
    }

    var text: String { collected.withLock { $0 } }

    /// Whether `marker` arrived within `limit`.
    func waitFor(_ marker: String, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !text.contains(marker) {
            if ended.hasFired || ContinuousClock.now >= deadline { return text.contains(marker) }
            let event = AsyncEvent()
            changed.withLock { $0.append(event) }
            if text.contains(marker) || ended.hasFired { continue }
            _ = await Self.wait(event, until: deadline)
        }
        return true
    }

    /// Whether the pipe reached end-of-file within `limit`.
    func waitForEnd(within limit: Duration) async -> Bool {
        await Self.wait(ended, until: ContinuousClock.now + limit)
    }

    /// Waits for `event` until `deadline`; whether it happened.
    private static func wait(_ event: AsyncEvent, until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await event.wait(); return true }
            group.addTask { try? await Task.sleep(until: deadline); return false }  // a time limit, not synchronisation
            let first = await group.next() ?? false
            group.cancelAll()
            if !first { event.signal() }  // releases the waiting child task
            return first
        }
    }
}
