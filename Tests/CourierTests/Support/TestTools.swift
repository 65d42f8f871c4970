import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tools from PyPI that the interoperability tests run, each in a Python environment of
/// `Scripts/install-test-tools.sh` under `.build` (or under the folder `COURIER_TEST_TOOLS` names).
///
/// A test asks for a tool and gets it: the first test to need an environment on a clone installs
/// it with that script (a minute or two from PyPI), later ones find it there. One install runs at
/// a time, in this process and across processes (two `swift test` runs on one clone), under a file
/// lock. A tool that cannot be had fails the test that needs it, with the installer's words; no
/// test skips for want of one.
enum TestTools {
    /// The repository (Tests/CourierTests/Support/TestTools.swift → four folders up).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The environments, as the script names them.
    enum Environment: String, Sendable {
        /// mitmproxy and haralyzer.
        case tools = "test-tools"
        /// FastAPI, Django REST framework, Flask + webargs.
        case frameworks = "test-frameworks"
        /// schemathesis.
        case schemathesis = "test-schemathesis"
        /// actionlint.
        case lint = "test-lint"
        /// sse-starlette, FastAPI, uvicorn.
        case streams = "test-streams"
    }

    /// Where the environments live.
    static var folder: URL {
        if let path = ProcessInfo.processInfo.environment["COURIER_TEST_TOOLS"] { return URL(fileURLWithPath: path) }
        return root.appendingPathComponent(".build")
    }

    /// The tool `name` in the environment's `bin`, installed first if this clone lacks it.
    static func executable(_ name: String, in environment: Environment = .tools) async throws -> URL {
        try await installed(environment)
        let url = folder.appendingPathComponent("\(environment.rawValue)/bin/\(name)")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Missing(description: "\(url.path) is missing after Scripts/install-test-tools.sh \(environment.rawValue) ran without an error.")
        }
        return url
    }

    /// Runs the environment's Python with `arguments` and returns what it printed; a failure (or
    /// a run past two minutes, when it is killed) throws with what it printed to standard error.
    static func runPython(_ arguments: [String], in environment: Environment = .tools) async throws -> Data {
        let outcome = try await ChildProcess.run(executable: executable("python", in: environment), arguments: arguments, within: .seconds(120))
        guard outcome.succeeded else {
            throw Missing(description: "python \(arguments.joined(separator: " ")) failed: \(outcome)")
        }
        return Data(outcome.output.utf8)
    }

    /// One install per environment in this process: every test that asks waits for the same one.
    private static let installs = Locked<[Environment: Task<Void, any Error>]>([:])

    /// Runs the script for `environment` once in this process (it returns at once when the
    /// environment is there with the same pins); a failed install is tried again by the next test.
    private static func installed(_ environment: Environment) async throws {
        let install = installs.withLock { installs in
            if let running = installs[environment] { return running }
            let running = Task { try await Self.install(environment) }
            installs[environment] = running
            return running
        }
        do {
            try await install.value
        } catch {
            installs.withLock { installs in if installs[environment] == install { installs[environment] = nil } }
            throw error
        }
    }

    private static func install(_ environment: Environment) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let lock = try await FileLock.acquire(folder.appendingPathComponent("test-tools.lock"))
        defer { lock.release() }
        let script = root.appendingPathComponent("Scripts/install-test-tools.sh")
        // pip gets a long limit: it is a guard against a hang, not a measure of PyPI.
        let outcome = try await ChildProcess.run(executable: URL(fileURLWithPath: "/bin/bash"), arguments: [script.path, environment.rawValue], within: .seconds(1200))
        guard outcome.succeeded else {
            throw Missing(description: "Scripts/install-test-tools.sh \(environment.rawValue) could not install the tools this test needs: \(outcome)")
        }
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }
}

/// An exclusive `flock` on a file, held until ``release()`` or this process's end (the kernel
/// drops it then, so a crashed run never leaves it held).
struct FileLock: Sendable {
    private let descriptor: Int32

    /// Waits for the lock on `url` (created if missing). The wait blocks a thread of its own,
    /// never one of the concurrency pool's, which the install it waits for needs.
    static func acquire(_ url: URL) async throws -> FileLock {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Missing(description: "cannot open the lock file \(url.path): \(String(cString: strerror(errno)))") }
        let locked: Int32 = await withCheckedContinuation { continuation in
            Thread {
                var result: Int32
                repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
                continuation.resume(returning: result == 0 ? 0 : errno)
            }.start()
        }
        guard locked == 0 else {
            close(descriptor)
            throw Missing(description: "cannot lock \(url.path): \(String(cString: strerror(locked)))")
        }
        return FileLock(descriptor: descriptor)
    }

    /// Lets the lock go.
    func release() {
        close(descriptor)
    }

    private typealias Missing = TestTools.Missing
}
