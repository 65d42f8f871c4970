import Courier
import Foundation
import Subprocess
import SystemPackage

/// A fresh directory under the temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-test-\(UUID().uuidString)")

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// A new directory, created on disk (a plain `TemporaryDirectory()` only names one).
    static func created() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        return directory
    }

    /// Every file under the directory, relative paths.
    var files: [String] {
        let enumerator = FileManager.default.enumerator(atPath: url.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(path)
            }
        }
        return found
    }
}

/// Runs `body` with a cache in a temporary directory, removed afterwards.
func withTemporaryCache<T>(
    memoryCapacity: Int = ResponseCache.defaultMemoryCapacity, _ body: (ResponseCache, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let cache = ResponseCache(directory: directory.url, memoryCapacity: memoryCapacity)
    await cache.loaded()
    return try await body(cache, directory)
}

extension APIClient {
    /// Stores a document on the sample server (PUT /documents/{name}).
    func putDocument(_ name: String, _ text: String) async throws {
        _ = try await send(Request<JSONValue>(.put, "documents/\(name)", body: .data(Data(text.utf8), contentType: "text/plain")))
    }
}

/// `courier-test-helper` (`Tests/CourierTestHelper`), built beside the test bundle: crash, memory
/// and fuzz tests run its commands as children.
func testHelperExecutable() throws -> URL {
    try builtExecutable("courier-test-helper")
}

/// An executable of this package built beside the test bundle: `courier`, `courier-test-helper`,
/// or `courier-watch` (the watcher the tests run their tools under).
func builtExecutable(_ name: String) throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name),
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) is not built beside the tests (swift build --build-tests builds it)"])
    }
    return found
}

/// Runs a `courier-test-helper` writer command (`cache-writer`, `store-writer`, `outbox-writer`,
/// `download-writer`) that kills itself with SIGKILL at a random moment within `within` of its
/// `ready` (``CrashPoint``: the child takes the moment, so a parent busy with the rest of the
/// suite cannot make it late), and waits for it; returns whether the signal ended it.
/// Its standard input stays open until then: a writer exits when it reads end-of-file (its parent
/// is gone).
///
/// Spawned with swift-subprocess, not Foundation's `Process`: on Linux (Swift 6.3) `Process.run`
/// reads the names of `/proc/self/fd` past the end of their records and crashes now and then
/// (swift-corelibs-foundation pull request 5472), and the crash tests spawn hundreds of children.
func killWriter(_ arguments: [String], within: Duration) async throws -> Bool {
    let limit = within.components.seconds * 1_000_000 + within.components.attoseconds / 1_000_000_000_000
    return try await runWriter(arguments, environment: .inherit.updating(["COURIER_CRASH_WITHIN_US": "\(limit)"])) { _ in }
}

/// Runs a `courier-test-helper` writer command as ``killWriter(_:within:)`` does, but the parent
/// kills it with SIGKILL once `moment` returns true (what the test waits on, such as a server's
/// log line; on false the writer is left to end by itself); returns whether the signal ended it.
func killWriter(_ arguments: [String], when moment: @escaping @Sendable () async -> Bool) async throws -> Bool {
    try await runWriter(arguments, environment: .inherit) { child in
        if await moment() { kill(child, SIGKILL) }
    }
}

/// Runs a writer, `meanwhile` given its process id, until it ends; whether SIGKILL ended it.
private func runWriter(
    _ arguments: [String], environment: Environment, meanwhile: @escaping @Sendable (pid_t) async -> Void
) async throws -> Bool {
    let executable = try testHelperExecutable()
    let result = try await Subprocess.run(
        .path(FilePath(executable.path)), arguments: Arguments(arguments), environment: environment,
        input: .inputWriter, output: .sequence, error: .discarded
    ) { execution in
        await meanwhile(execution.processIdentifier.value)
        for try await _ in execution.standardOutput {}  // until the child ends
    }
    if case .signaled(let signal) = result.terminationStatus { return signal == SIGKILL }
    return false
}
