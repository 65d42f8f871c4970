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
    static func runPython(_ arguments: [String], in environment: String = "test-tools") async throws -> Data {
        let outcome = try await ChildProcess.run(executable: executable("python", in: environment), arguments: arguments, within: .seconds(120))
        guard outcome.succeeded else {
            throw Missing(description: "python \(arguments.joined(separator: " ")) failed: \(outcome)")
        }
        return Data(outcome.output.utf8)
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }
}
