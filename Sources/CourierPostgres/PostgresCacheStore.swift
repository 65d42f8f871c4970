import Courier
import Foundation
import Logging
import PostgresNIO

/// A ``Courier/CacheStore`` in PostgreSQL: one response cache for every process that points at
/// the same database, by the rules of a shared HTTP cache (RFC 9111).
///
/// ```swift
/// let database = PostgresClient(configuration: postgresConfiguration, backgroundLogger: logger)
/// // run `database.run()` for as long as the service runs, in its service group or a task
/// let store = try PostgresCacheStore(client: database)
/// var configuration = ClientConfiguration(baseURL: apiURL)
/// configuration.cache = ResponseCache(store: store)
/// configuration.cacheFreshness = .http
/// configuration.cacheOption = .both
/// ```
///
/// - The store creates its table (and migrates it, under an advisory lock, so that processes
///   starting together do it once) at its first use.
/// - The table is `UNLOGGED` by default: writes skip PostgreSQL's write-ahead log, so they cost
///   less, but a crash of the database server empties the table, and replicas do not have it.
///   For a cache that is a fair trade (see ``Configuration/unlogged``).
/// - Entries larger than ``Configuration/maximumEntrySize`` are not cached.
/// - An entry not written again for ``Configuration/retention`` is removed by the store itself,
///   at most once per minute by one of the writers.
/// - Every write and removal is announced with `NOTIFY`, so the memory layer in front of the
///   store in every process drops what another process replaced or removed.
/// - A database that is down, unreachable or slower than ``Configuration/timeout`` makes the
///   operation fail: the request then goes to the network as if there were no cache. After a
///   failure the store skips the database for a second (doubling, up to thirty, while failures
///   go on), so that requests meanwhile do not each wait for the timeout.
public final class PostgresCacheStore: CacheStore {
    /// What the store does and where.
    public struct Configuration: Sendable {
        /// The table's name: letters, digits and `_`, starting with a letter, at most 48 characters
        /// (the store also makes `<table>_schema`, its indexes, and a `NOTIFY` channel of that name).
        public var table: String = "courier_cache"
        /// Whether the table is `UNLOGGED` (the default): faster writes, emptied by a crash of the
        /// database server. Read when the table is made; an existing table keeps what it has.
        public var unlogged = true
        /// The largest entry (the body and its header fields) the store keeps: 1 MiB by default.
        public var maximumEntrySize = 1 << 20
        /// How long an entry is kept after its last write: a day by default. An HTTP cache may
        /// still use a stale entry (to revalidate it), so this is longer than most freshness. At
        /// most 100 years.
        public var retention: Duration = .seconds(86_400)
        /// The longest a read, write or removal may take before the request goes on without the
        /// cache: 500 ms by default; more than 0, at most a day.
        public var timeout: Duration = .milliseconds(500)
        /// How long a process waits for another's revalidation of a stale entry before it
        /// revalidates on its own: 10 seconds by default; at most a day.
        public var revalidationWait: Duration = .seconds(10)

        /// The defaults.
        public init() {}
    }

    private let client: PostgresClient
    private let configuration: Configuration
    private let logger: Logger
    /// This process's mark on its own notifications, which it skips.
    private let origin = UUID().uuidString
    private let state = Locked(State())

    private struct State {
        var schema: SchemaState = .absent
        var lastCleanup: ContinuousClock.Instant?
        var listening: Task<Void, Never>?
        var breaker = Breaker.closed
    }

    /// Whether operations go to the database. After a failure the store stops trying for a
    /// while (one second, doubling up to thirty while failures go on), so that a database that
    /// is down costs each request nothing rather than a timeout; the first operation after the
    /// pause tries again, and a success closes the breaker.
    private enum Breaker {
        case closed
        case open(until: ContinuousClock.Instant, pause: Duration)
    }

    /// The database failed moments ago and the store is pausing.
    struct Paused: Error, CustomStringConvertible {
        var description: String { "the database failed moments ago; the cache is skipped for a few seconds" }
    }

    /// Whether the table is known to exist, as this process has seen it.
    private enum SchemaState {
        case absent
        case preparing(Task<Void, any Error>)
        case ready
    }

    /// Creates a store on `client`, which the caller runs (`client.run()`) for as long as the
    /// store is used.
    /// - Throws: ``Courier/CourierError/Kind/invalidRequest`` for a table name or a limit that
    ///   cannot be used.
    public init(client: PostgresClient, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "Courier.cache.postgres")) throws(CourierError) {
        let table = configuration.table
        let valid = (1...48).contains(table.utf8.count)
            && table.utf8.first.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) } == true
            && table.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
        guard valid else {
            throw CourierError(.invalidRequest, "PostgresCacheStore's table is \"\(table)\"; use letters, digits and _, starting with a letter, at most 48 characters")
        }
        // Bounded so that every sum and conversion of them stays far inside what they are held in
        // (a Duration of Int64.max seconds would overflow `timeout + revalidationWait`).
        let day = Duration.seconds(86_400)
        guard configuration.maximumEntrySize >= 0, (.zero...(day * 36_500)).contains(configuration.retention),
              (.zero...day).contains(configuration.revalidationWait), configuration.timeout > .zero, configuration.timeout <= day
        else {
            throw CourierError(
                .invalidRequest,
                "PostgresCacheStore's maximumEntrySize (\(configuration.maximumEntrySize)) must be 0 or more, its retention (\(configuration.retention)) between 0 and 100 years, its revalidationWait (\(configuration.revalidationWait)) between 0 and a day, and its timeout (\(configuration.timeout)) more than 0 and at most a day")
        }
        self.client = client
        var checked = configuration
        checked.table = table.lowercased()
        self.configuration = checked
        self.logger = logger
    }

    deinit { state.withLock { $0.listening }?.cancel() }

    /// Every user of the store shares its entries.
    public var isShared: Bool { true }

    /// The entry's bytes, unless it expired; bounded by ``Configuration/timeout``.
    public func entry(named key: CacheKey) async throws -> Data? {
        try await bounded { [self] in
            try await prepared()
            let rows = try await client.query(
                "SELECT entry FROM \(unescaped: configuration.table) WHERE name = \(key.name) AND expires_at > now()", logger: logger)
            for try await entry in rows.decode(Data.self) { return entry }
            return nil
        }
    }

    /// Inserts or replaces the entry and announces it with `NOTIFY`; `false`, storing nothing,
    /// for an entry above ``Configuration/maximumEntrySize``. Bounded by ``Configuration/timeout``.
    public func store(_ entry: Data, named key: CacheKey) async throws -> Bool {
        guard entry.count <= configuration.maximumEntrySize else { return false }
        try await bounded { [self] () async throws -> Void in
            try await prepared()
            let table = configuration.table
            let retention = Self.seconds(configuration.retention)
            try await client.query(
                """
                WITH written AS (
                    INSERT INTO \(unescaped: table) (name, scope, path_digest, entry, expires_at)
                    VALUES (\(key.name), \(key.scope), \(key.pathDigest), \(entry), now() + make_interval(secs => \(retention)))
                    ON CONFLICT (name) DO UPDATE SET entry = EXCLUDED.entry, expires_at = EXCLUDED.expires_at
                )
                SELECT pg_notify(\(table), \(origin + " " + key.name))
                """, logger: logger)
        }
        await removeExpiredIfDue()
        return true
    }

    /// Deletes the entries of a scope's path, of a scope, or all of them, and announces it with
    /// `NOTIFY`; bounded by ``Configuration/timeout``.
    public func removeEntries(scope: String?, pathDigest: String?) async throws {
        try await bounded { [self] () async throws -> Void in
            try await prepared()
            let table = configuration.table
            switch (scope, pathDigest) {
            case (let scope?, let pathDigest?):
                try await client.query(
                    """
                    WITH gone AS (DELETE FROM \(unescaped: table) WHERE scope = \(scope) AND path_digest = \(pathDigest))
                    SELECT pg_notify(\(table), \(origin + " " + scope + "/" + pathDigest + "/"))
                    """, logger: logger)
            case (let scope?, nil):
                try await client.query(
                    """
                    WITH gone AS (DELETE FROM \(unescaped: table) WHERE scope = \(scope))
                    SELECT pg_notify(\(table), \(origin + " " + scope + "/"))
                    """, logger: logger)
            case (nil, _):
                try await client.query(
                    "WITH gone AS (DELETE FROM \(unescaped: table)) SELECT pg_notify(\(table), \(origin + " "))", logger: logger)
            }
        }
    }

    /// Claims a stale entry's revalidation with a transaction-level advisory lock on the entry's
    /// name (in the table's own lock space), held on a connection of its own until the claim is
    /// released: the lock ends with the transaction, and with the connection if the process dies.
    public func claimRevalidation(of key: CacheKey, waiting: Bool) async throws -> CacheRevalidationClaim? {
        try await bounded { [self] in try await prepared() }
        let (released, release) = AsyncStream.makeStream(of: Never.self)
        let (outcome, report) = AsyncThrowingStream.makeStream(of: Bool.self)
        let table = configuration.table
        let wait = Int(Self.seconds(configuration.revalidationWait) * 1000)
        let holder = Task { [client, logger] in
            do {
                try await client.withTransaction(logger: logger) { connection in
                    let granted: Bool
                    if waiting {
                        try await connection.query("SELECT set_config('lock_timeout', \(String(wait) + "ms"), true)", logger: logger)
                        try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(table)), hashtext(\(key.name)))", logger: logger)
                        granted = true
                    } else {
                        let rows = try await connection.query(
                            "SELECT pg_try_advisory_xact_lock(hashtext(\(table)), hashtext(\(key.name)))", logger: logger)
                        var locked = false
                        for try await value in rows.decode(Bool.self) { locked = value }
                        granted = locked
                    }
                    report.yield(granted)
                    report.finish()
                    guard granted else { return }
                    for await _ in released {}
                }
            } catch {
                report.finish(throwing: error)
            }
        }
        // The lock's wait is bounded by the server (lock_timeout); this bounds a database that
        // stopped answering, once: that timeout opens the breaker for the operations after it
        // (a lock wait that passed its limit is no failure of the database).
        let limit = configuration.timeout + (waiting ? configuration.revalidationWait : .zero)
        do {
            let granted = try await Deadline.run(within: limit) {
                for try await granted in outcome { return granted }
                return false
            }
            guard granted else { return nil }
            return CacheRevalidationClaim { release.finish() }
        } catch {
            release.finish()
            holder.cancel()
            if error is Deadline.TimedOut { tripBreaker() }
            throw error
        }
    }

    /// Follows the table's notifications on a connection of its own, and again after a failure
    /// (each time starting with a change of everything: what came meanwhile is unknown).
    public func changes() -> AsyncStream<String>? {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
        let task = Task { [client, configuration, origin, logger] in
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: configuration.table) { notifications in
                            continuation.yield("")
                            for try await notification in notifications {
                                let payload = notification.payload
                                guard let space = payload.firstIndex(of: " ") else { continue }
                                guard payload[..<space] != origin else { continue }
                                continuation.yield(String(payload[payload.index(after: space)...]))
                            }
                        }
                    }
                } catch {
                    guard !Task.isCancelled else { break }
                    logger.warning("Courier's PostgreSQL cache lost its notifications (\(error)); memory layers are emptied, and it listens again")
                    continuation.yield("")
                }
                // A pause before listening again, so that a database that is down is not hammered.
                try? await Task.sleep(for: .seconds(1))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        state.withLock { $0.listening = task }
        return stream
    }

    // MARK: - The table

    /// Makes sure the table exists: once per process, and again after a failure.
    private func prepared() async throws {
        let pending: Task<Void, any Error>? = state.withLock { state in
            switch state.schema {
            case .ready:
                return nil
            case .preparing(let task):
                return task
            case .absent:
                let task = Task { [self] in try await migrate() }
                state.schema = .preparing(task)
                return task
            }
        }
        guard let task = pending else { return }
        do {
            try await task.value
            state.withLock { $0.schema = .ready }
        } catch {
            state.withLock { state in
                if case .preparing = state.schema { state.schema = .absent }
            }
            throw error
        }
    }

    /// The versions of the table, in order; each runs once, under a transaction-wide advisory lock.
    private var migrations: [String] {
        let table = configuration.table
        return [
            """
            CREATE \(configuration.unlogged ? "UNLOGGED " : "")TABLE \(table) (
                name text PRIMARY KEY,
                scope text NOT NULL,
                path_digest text NOT NULL,
                entry bytea NOT NULL,
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX \(table)_path ON \(table) (scope, path_digest)",
            "CREATE INDEX \(table)_expiry ON \(table) (expires_at)",
        ]
    }

    private func migrate() async throws {
        let table = configuration.table
        let migrations = migrations
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(table + "_schema")))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS \(unescaped: table)_schema (version integer NOT NULL)", logger: logger)
            var version = 0
            for try await found in try await connection.query("SELECT version FROM \(unescaped: table)_schema", logger: logger).decode(Int.self) {
                version = max(version, found)
            }
            guard version < migrations.count else { return }
            for statement in migrations[version...] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("DELETE FROM \(unescaped: table)_schema", logger: logger)
            try await connection.query("INSERT INTO \(unescaped: table)_schema (version) VALUES (\(migrations.count))", logger: logger)
        }
    }

    /// Removes the expired entries, when a minute has passed since this process last did (or the
    /// retention, when shorter).
    private func removeExpiredIfDue() async {
        let interval = min(configuration.retention, .seconds(60))
        let now = ContinuousClock.now
        let due = state.withLock { state in
            if let last = state.lastCleanup, now - last < interval { return false }
            state.lastCleanup = now
            return true
        }
        guard due else { return }
        do {
            try await bounded { [self] () async throws -> Void in
                try await client.query("DELETE FROM \(unescaped: configuration.table) WHERE expires_at <= now()", logger: logger)
            }
        } catch {
            logger.debug("Courier's PostgreSQL cache could not remove expired entries: \(error)")
        }
    }

    /// `operation`, or ``PostgresCacheStoreError/timedOut`` when it takes longer than the timeout
    /// (the operation is cancelled, and the caller does not wait for it to end).
    private func bounded<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let now = ContinuousClock.now
        let paused = state.withLock { state in
            if case .open(let until, _) = state.breaker, now < until { return true }
            return false
        }
        if paused { throw Paused() }
        do {
            let value = try await Deadline.run(within: configuration.timeout, operation)
            state.withLock { $0.breaker = .closed }
            return value
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            tripBreaker()
            throw error
        }
    }

    /// Opens the breaker after a failure: for a second, or twice the last pause (at most 30 s).
    private func tripBreaker() {
        state.withLock { state in
            let pause: Duration
            if case .open(_, let last) = state.breaker { pause = min(last * 2, .seconds(30)) } else { pause = .seconds(1) }
            state.breaker = .open(until: ContinuousClock.now + pause, pause: pause)
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
