import Foundation

/// The Python environments of `Scripts/install-test-tools.sh`: `.build/test-tools` (mitmproxy,
/// haralyzer) and `.build/test-frameworks` (FastAPI, Django REST framework, Flask + webargs) of the
/// repository, or under the directory `COURIER_TEST_TOOLS` names.
enum TestTools {
    /// The repository (Tests/CourierTests/Support/TestTools.swift → three folders up).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func directory(_ environment: String) -> URL {
        if let path = ProcessInfo.processInfo.environment["COURIER_TEST_TOOLS"] {
            return URL(fileURLWithPath: path).appendingPathComponent(environment)
        }
        return root.appendingPathComponent(".build/\(environment)")
    }

    /// The tool `name` in the environment's `bin`, or an error telling how to install it.
    static func executable(_ name: String, in environment: String = "test-tools") throws -> URL {
        let url = directory(environment).appendingPathComponent("bin/\(name)")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Missing(description: "\(url.path) is missing: run Scripts/install-test-tools.sh (it installs mitmproxy, haralyzer and the web frameworks from PyPI).")
        }
        return url
    }

    /// Runs the environment's Python with `arguments` and returns what it printed; a failure (or
    /// a run past two minutes, when it is killed) throws with what it printed to standard error.
    static func runPython(_ arguments: [String], in environment: String = "test-tools") throws -> Data {
        let process = Process()
        process.executableURL = try executable("python", in: environment)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A limit, not synchronisation: a script that hangs is killed, and the test fails.
        let limit = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: limit)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaints = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        limit.cancel()
        guard process.terminationStatus == 0 else {
            throw Missing(description: "python \(arguments.joined(separator: " ")) failed: \(String(decoding: complaints, as: UTF8.self))")
        }
        return printed
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }
}
