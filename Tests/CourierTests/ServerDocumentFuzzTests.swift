import BenchWorkloads
import Courier
import Foundation
import Testing

/// schemathesis (PyPI, installed on first use by `TestTools`) generates requests from the sample server's
/// own OpenAPI document (`/openapi.yaml`) and checks the answers against it: no 5xx (but from the
/// route that fails on purpose), and every status, content type, header and body as documented
/// (`Scripts/schemathesis.toml`). The server runs in a child process, so a request that crashes it
/// fails this test and not the run.
@Suite struct ServerDocumentFuzzTests {
    @Test func schemathesisFindsTheServerTrueToItsDocument() async throws {
        let schemathesis = try await TestTools.executable("st", in: .schemathesis)
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let port = try FreePort.next()
        let base = "http://127.0.0.1:\(port)"
        var run: ChildProcess.Outcome?
        var stillServing = false
        let server = try await ChildProcess.run(
            executable: builtExecutable("courier"),
            arguments: ["serve", "--port", "\(port)", "--database", directory.url.appendingPathComponent("store.sqlite").path],
            within: .seconds(300)
        ) { isRunning in
            // Through env, for the hooks that make the upload routes' bodies (`SCHEMATHESIS_HOOKS`).
            run = try await ChildProcess.run(
                executable: URL(fileURLWithPath: "/usr/bin/env"),
                arguments: [
                    "SCHEMATHESIS_HOOKS=" + TestTools.root.appendingPathComponent("Scripts/schemathesis-hooks.py").path, schemathesis.path,
                    "--config-file", TestTools.root.appendingPathComponent("Scripts/schemathesis.toml").path, "run", "\(base)/openapi.yaml",
                    "--url", base, "--wait-for-schema", "60", "--max-time", "45", "--workers", "1", "--seed", "20261124", "--no-color",
                ], directory: directory.url, within: .seconds(240))  // schemathesis keeps its cache where it runs
            stillServing = isRunning()
        }
        #expect(stillServing, "the server died during the run: \(server)")
        let outcome = try #require(run)
        let summary = outcome.output.components(separatedBy: "Test cases:").last?.split(separator: "\n").first { $0.contains("generated") } ?? "no summary"
        print("schemathesis: \(summary.trimmingCharacters(in: .whitespaces))")
        #expect(outcome.succeeded, "schemathesis \(outcome)")
        #expect(summary.contains("passed"), "\(outcome.output.suffix(2000))")
    }
}
