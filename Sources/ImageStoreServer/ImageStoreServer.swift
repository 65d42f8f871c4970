import Courier
import Foundation
import Hummingbird
import HummingbirdWebSocket
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
///   status and `Retry-After`.
///
/// Other modules add routes and middleware through ``ServerConfiguration/extensions``; the
/// `ImageStoreTesting` module adds the counters, hold gates and routes Courier's own tests use.
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

    /// What ``ServerConfiguration/extensions`` added to the server.
    public let extensions: [any ServerExtension]

    private let database: ServerDatabase
    private let group: ServiceGroup
    private let runTask: Locked<Task<Void, Never>?>
    private let finished: Task<Void, Never>
    /// Succeeds when the listening socket is closed.
    private let listenerClosed: EventLoopFuture<Void>

    /// Whether the server speaks HTTPS (``ServerConfiguration/tls``).
    public let usesTLS: Bool

    /// `http://host:port`, or `https://host:port` with ``ServerConfiguration/tls``.
    public var baseURL: URL { URL(string: "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)")! }

    private init(
        host: String, port: Int, database: ServerDatabase, extensions: [any ServerExtension],
        group: ServiceGroup, runTask: Task<Void, Never>, listenerClosed: EventLoopFuture<Void>, routes: [String], usesTLS: Bool
    ) {
        self.listenerClosed = listenerClosed
        self.routes = routes
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
        self.databasePath = database.path
        self.database = database
        self.extensions = extensions
        self.group = group
        self.runTask = Locked(runTask)
        self.finished = Task { await runTask.value }
    }

    /// Starts a server and returns once it accepts connections. Without a `logger` it logs
    /// warnings and errors only.
    /// - Throws: when the database cannot be opened or the address cannot be bound.
    public static func start(_ configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil) async throws -> ImageStoreServer {
        let database = try ServerDatabase.open(path: configuration.databasePath)
        let logger = logger ?? {
            var quiet = Logger(label: "ImageStoreServer")
            quiet.logLevel = .warning
            return quiet
        }()
        let accounts = AccountStore(database: database, bcryptCost: configuration.bcryptCost, grace: configuration.replacedTokenGrace)
        if let demo = configuration.demoAccount {
            try await accounts.ensureAccount(email: demo.email, password: demo.password)
        }
        let idempotency = try IdempotencyLedger(database: database)
        let router = ServerRouter.build(
            database: database, accounts: accounts, maximumImageSize: configuration.maximumImageSize, idempotency: idempotency,
            extensions: configuration.extensions)
        let ready = StartSignal()
        let webSockets = WebSocketRoutes(accounts: accounts)
        var server = HTTPServerBuilder.http1WebSocketUpgrade(webSocketRouter: webSockets.router(), configuration: WebSocketRoutes.configuration)
        if let tls = configuration.tls {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(tls.certificateChainPEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(bytes: Array(tls.privateKeyPEM.utf8), format: .pem)
            server = try .tls(server, tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
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
                host: configuration.host, port: listening.port, database: database, extensions: configuration.extensions,
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

    /// Returns when the server has stopped (after ``stop()``, or when it failed).
    public func waitUntilStopped() async { await finished.value }
}

/// Why the server did not start.
struct ServerStartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
