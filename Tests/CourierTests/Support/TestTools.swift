import Foundation

/// The Python tools of `Scripts/install-test-tools.sh` (mitmproxy, haralyzer), in
/// `.build/test-tools` of the repository, or where `COURIER_TEST_TOOLS` says.
enum TestTools {
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["COURIER_TEST_TOOLS"] { return URL(fileURLWithPath: path) }
        // Tests/CourierTests/Support/TestTools.swift → the repository.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/test-tools")
    }

    /// The tool `name` in the environment's `bin`, or an error telling how to install it.
    static func executable(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent("bin/\(name)")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw Missing(description: "\(url.path) is missing: run Scripts/install-test-tools.sh (it installs mitmproxy and haralyzer from PyPI).")
        }
        return url
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }
}
