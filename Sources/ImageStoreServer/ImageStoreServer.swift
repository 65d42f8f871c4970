import Courier
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
import Logging
import ServiceLifecycle

/// The seed-004 sample server: a Hummingbird 2 application on SQLite that Courier's tests, demo and
/// benchmarks talk to, started in-process. Its tasks run on two threads of their own, not on the
/// process's concurrency pool, so a client in the same process is not slowed by its work.
///
/// ```swift
/// let server = try await ImageStoreServer.start()          // 127.0.0.1, a free port, a temporary database
/// let client = APIClient(baseURL: server.baseURL)
/// …
/// await server.stop()
/// ```
///
/// Routes today (more arrive with the image store, authentication and XML):
/// - `/echo` and `/echo/**`, any method: the request as received (method, raw path and query,
///   headers, Base64 body) as JSON;
/// - `/status/{code}`, any method: answers that status with `{"status": code}`;
/// - `GET /delay/{milliseconds}`: answers after the delay;
/// - `GET /bytes/{count}`: streams `count` bytes, byte `i` being `i % 251` (`?chunked=true` leaves
///   out `Content-Length`), with the strong `ETag` `"bytes-<count>"` and `Range` / `If-Range`
///   honoured (206, 416);
/// - `GET /sample`: a ~300-byte JSON document (XML with `?type=xml`);
/// - `GET /errors/422?shape=rails|nested|jsonapi|problem`, `GET /errors/validation/{framework}` (a
///   framework's field errors with its status), `GET /errors/500` (an HTML page) and
///   `GET /errors/{code}?key=…&message=…` (JSON, or XML with `?type=xml`): failures in real APIs' shapes;
/// - `/redirect?to=URL&status=302`, any method: a redirect; `/redirect/loop` redirects to itself;
/// - `POST /auth`, `POST /auth/sign_in`, `DELETE /auth/sign_out`, `GET /me`: devise-style accounts
///   with rotating `access-token`/`client`/`uid`/`expiry` headers, and a demo account
///   (``ServerConfiguration/demoAccount``, `demo@example.com` / `password` by default);
/// - `/flaky/{key}` (any method): a response that fails a chosen number of times with a chosen
///   status and `Retry-After`;
/// - with the test routes on (Courier's own tests, demo and benchmarks; `courier serve --test-routes`):
///   `GET /hold/{key}`, a response held until released, and `GET /_counters`, requests per route
///   (not itself counted).
///
/// The counters, hold gates and port holding are Courier's test instrumentation, for its own
/// targets only (`package`).
public final class ImageStoreServer: Sendable {
    /// The address the server listens on.
    public let host: String
    /// The port the server listens on.
    public let port: Int
    /// The SQLite database file.
    public let databasePath: String

    /// Every route the server answers, as `METHOD /path/{parameter}` (Hummingbird's notation),
    /// sorted: what a test compares with the OpenAPI document the server publishes.
    package let routes: [String]

    private let database: ServerDatabase
    private let counter: RequestCounter
    private let ledger: FlakyLedger
    private let gate: HoldGate
    private let group: ServiceGroup
    private let runTask: Locked<Task<Void, Never>?>
    private let finished: Task<Void, Never>
    /// Succeeds when the listening socket is closed.
    private let listenerClosed: EventLoopFuture<Void>
    /// The port kept bound after ``stopHoldingPort(gracePeriod:)``.
    private let heldPort = Locked<PortHold?>(nil)

    /// Whether the server speaks HTTPS (``ServerConfiguration/tls``).
    public let usesTLS: Bool

    /// `http://host:port`, or `https://host:port` with ``ServerConfiguration/tls``.
    public var baseURL: URL { URL(string: "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)")! }

    private init(
        host: String, port: Int, database: ServerDatabase, counter: RequestCounter, ledger: FlakyLedger, gate: HoldGate,
        group: ServiceGroup, runTask: Task<Void, Never>, listenerClosed: EventLoopFuture<Void>, routes: [String], usesTLS: Bool
    ) {
        self.listenerClosed = listenerClosed
        self.routes = routes
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
        self.databasePath = database.path
        self.database = database
        self.counter = counter
        self.ledger = ledger
        self.gate = gate
        self.group = group
        self.runTask = Locked(runTask)
        self.finished = Task { await runTask.value }
    }

    /// Starts a server and returns once it accepts connections. Without a `logger` it logs
    /// warnings and errors only.
    /// - Throws: when the database cannot be opened or the address cannot be bound.
    public static func start(_ configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil) async throws -> ImageStoreServer {
        let database = try ServerDatabase.open(path: configuration.databasePath)
        let counter = RequestCounter()
        let logger = logger ?? {
            var quiet = Logger(label: "ImageStoreServer")
            quiet.logLevel = .warning
            return quiet
        }()
        let accounts = AccountStore(database: database, bcryptCost: configuration.bcryptCost, grace: configuration.replacedTokenGrace)
        if let demo = configuration.demoAccount {
            try await accounts.ensureAccount(email: demo.email, password: demo.password)
        }
        let ledger = FlakyLedger()
        let gate = HoldGate()
        let idempotency = try IdempotencyLedger(database: database)
        let router = ServerRouter.build(
            counter: counter, database: database, accounts: accounts, maximumImageSize: configuration.maximumImageSize,
            ledger: ledger, gate: gate, idempotency: idempotency, testRoutes: configuration.testRoutes)
        let ready = StartSignal()
        var server = HTTPServerBuilder.http1()
        if let tls = configuration.tls {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(tls.certificateChainPEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(bytes: Array(tls.privateKeyPEM.utf8), format: .pem)
            server = try .tls(.http1(), tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "ImageStoreServer"),
            onServerRunning: { channel in
                ready.succeed(.init(port: channel.localAddress?.port ?? configuration.port, closed: channel.closeFuture))
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        // Every task of the server's (connections, handlers, body readers) inherits this preference.
        let runTask = Task(executorPreference: ServerExecutor.shared) {
            do {
                try await group.run()
                ready.fail(ServerStartError("the server stopped before it started listening"))
            } catch {
                ready.fail(error)
            }
        }
        do {
            let listening = try await ready.wait()
            return ImageStoreServer(
                host: configuration.host, port: listening.port, database: database, counter: counter, ledger: ledger, gate: gate,
                group: group, runTask: runTask, listenerClosed: listening.closed, routes: router.routes.map { "\($0.method) \($0.path)" }.sorted(), usesTLS: configuration.tls != nil)
        } catch {
            runTask.cancel()
            await runTask.value
            database.removeIfTemporary()
            throw error
        }
    }

    /// Stops accepting connections, lets requests in flight finish (for up to `gracePeriod`, after
    /// which they are cancelled), and deletes a temporary database. Calling it again only waits.
    public func stop(gracePeriod: Duration = .seconds(2)) async {
        guard let task = runTask.withLock({ task in defer { task = nil }; return task }) else {
            return await finished.value
        }
        await group.triggerGracefulShutdown()
        // The grace period starts once the listening socket is closed. Cancelling the server while
        // it still accepts can drop a connection that was accepted and not yet handed to the accept
        // loop, and NIO (2.101) traps on that (swift-nio issue 2813). On a busy machine the shutdown
        // itself can take longer than the grace period to close the socket.
        try? await listenerClosed.get()
        let deadline = Task {
            try await Task.sleep(for: gracePeriod)
            task.cancel()
        }
        await task.value
        deadline.cancel()
        database.removeIfTemporary()
    }

    /// Stops the server as ``stop(gracePeriod:)`` does and keeps its port bound, not listening,
    /// until ``releasePort()``: its URL refuses connections, as a server that is gone does, and
    /// no server started meanwhile on port 0 (in this process or another) is given the port and
    /// answers in its place. Release it right before a server starts on the port again:
    ///
    /// ```swift
    /// try await server.stopHoldingPort()
    /// // … requests to server.baseURL fail with cannotConnect …
    /// server.releasePort()
    /// let back = try await ImageStoreServer.start(ServerConfiguration(port: server.port, databasePath: path))
    /// ```
    /// - Throws: when the port cannot be bound again (the server is stopped all the same).
    package func stopHoldingPort(gracePeriod: Duration = .seconds(2)) async throws {
        await stop(gracePeriod: gracePeriod)
        let hold = try PortHold(host: host, port: port)
        heldPort.withLock { $0 = hold }
    }

    /// Unbinds the port ``stopHoldingPort(gracePeriod:)`` kept; does nothing if none is held.
    package func releasePort() {
        heldPort.withLock { held in
            defer { held = nil }
            return held
        }?.release()
    }

    /// Returns when the server has stopped (after ``stop()``, or when it failed).
    public func waitUntilStopped() async { await finished.value }

    /// Requests received by `route` (a pattern as registered, such as `/echo/**` or
    /// `/status/{code}`), for one method or, with `nil`, all methods.
    package func requestCount(_ method: String? = nil, _ route: String) -> Int {
        counter.count(method: method, route: route)
    }

    /// Requests to `route` the server answered `304 Not Modified` (conditional requests whose
    /// copy was current), for one method or all.
    package func notModifiedCount(_ method: String? = nil, _ route: String) -> Int {
        counter.count(method: method, route: route + "#304")
    }

    /// Requests received by `route` with any method.
    package func requestCount(_ route: String) -> Int {
        counter.count(method: nil, route: route)
    }

    /// Returns once `route` has received at least `count` requests (of `method`, or of any method
    /// with `nil`): a way for tests to act at a known point without sleeping.
    package func waitForRequests(_ method: String? = nil, _ route: String, count: Int = 1) async {
        await counter.wait(method: method, route: route, count: count)
    }

    /// Every count, keyed `"METHOD /route"`.
    package var requestCounts: [String: Int] { counter.all }

    /// Requests `/flaky/{key}` has received for `key`.
    package func flakyAttempts(_ key: String) -> Int { ledger.count(key) }

    /// The byte at `index` of every `/ranged/{count}` file of `version`.
    package static func rangedByte(_ index: Int, version: String = "1") -> UInt8 { ResilienceRoutes.rangedByte(index, version: version) }

    /// Lets every `GET /hold/{key}` for `key` answer, now and later.
    package func release(_ key: String) { gate.release(key) }

    /// Sets every count to zero.
    package func resetCounters() { counter.reset() }
}

/// Why the server did not start.
struct ServerStartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
