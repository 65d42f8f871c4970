import Courier
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        let port = try Self.freePort()
        let base = "http://127.0.0.1:\(port)"
        var run: ChildProcess.Outcome?
        var stillServing = false
        let server = try await ChildProcess.run(
            executable: builtExecutable("courier"),
            arguments: ["serve", "--port", "\(port)", "--database", directory.url.appendingPathComponent("store.sqlite").path],
            within: .seconds(300)
        ) { isRunning in
            run = try await ChildProcess.run(
                executable: schemathesis,
                arguments: [
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

    /// The ports ``freePort()`` handed out in this process: none is handed out twice.
    private static let handedOut = Locked(Set<Int>())

    /// A port no one listens on now, for a server that cannot listen on port 0 (nginx, PostgreSQL,
    /// schemathesis's targets): below the kernel's range for outgoing connections' ports, so no
    /// connection takes it before the server binds it, and never one handed out before in this
    /// process (the kernel's pick for port 0 can come again once its socket is closed).
    static func freePort() throws -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        let range = max(1024, low - 12_000)..<max(2048, low)
        for _ in 0..<200 {
            let port = Int.random(in: range)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Whether a socket can bind 127.0.0.1:`port` now.
    private static func canBind(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
