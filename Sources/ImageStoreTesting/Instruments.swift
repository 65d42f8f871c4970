import Courier
import Hummingbird
import ImageStoreServer
import Logging

/// The sample server's test instrumentation, a ``ServerExtension``: counts of the requests each
/// route received (and waiting for a count), hold gates, the routes only tests use
/// (``TestRoutes``) and a port kept bound after a stop. Start a server with it through
/// ``ImageStoreServer/instrumented(_:logger:)`` and read it through the server's methods below.
public final class Instruments: ServerExtension {
    let counter = RequestCounter()
    let tally = Tally()
    let gate = HoldGate()
    /// The port kept bound after ``ImageStoreServer/stopHoldingPort(gracePeriod:)``.
    let heldPort = Locked<PortHold?>(nil)

    /// Creates instruments with every count at zero and every gate closed.
    public init() {}

    private var routes: TestRoutes { TestRoutes(counter: counter, ledger: tally, gate: gate) }

    /// Adds `/_counters` (which is not counted), then the middleware that counts every later route.
    public func addFirst(to router: Router<BasicRequestContext>) {
        routes.addUncounted(to: router)
        router.add(middleware: CountingMiddleware(counter: counter))
    }

    /// Adds the middleware that counts the requests `/flaky/{key}` answers, per key, and the one
    /// that counts (and, when asked, cuts) the resumable uploads' bodies.
    public func addBeforeRoutes(to router: Router<BasicRequestContext>) {
        router.add(middleware: FlakyTallyMiddleware(tally: tally))
        router.add(middleware: UploadDropMiddleware(tally: tally))
    }

    /// Adds the test routes: `/hold`, `/cached`, `/ranged` (``TestRoutes``).
    public func addLast(to router: Router<BasicRequestContext>) {
        routes.add(to: router)
    }
}

extension ImageStoreServer {
    /// Starts a server as ``ImageStoreServer/start(_:logger:)`` does, with ``Instruments`` added.
    public static func instrumented(_ configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil) async throws -> ImageStoreServer {
        var configuration = configuration
        configuration.extensions.append(Instruments())
        return try await start(configuration, logger: logger)
    }

    /// The server's ``Instruments``. A server started without them is a mistake in the test that
    /// started it, and stops the process with a message that says so.
    public var instruments: Instruments {
        guard let instruments = extensions.lazy.compactMap({ $0 as? Instruments }).first else {
            preconditionFailure("This server has no instruments: start it with ImageStoreServer.instrumented(_:) to count its requests or hold its responses.")
        }
        return instruments
    }

    /// Requests received by `route` (a pattern as registered, such as `/echo/**` or
    /// `/status/{code}`), for one method or, with `nil`, all methods.
    public func requestCount(_ method: String? = nil, _ route: String) -> Int {
        instruments.counter.count(method: method, route: route)
    }

    /// Requests to `route` the server answered `304 Not Modified` (conditional requests whose
    /// copy was current), for one method or all.
    public func notModifiedCount(_ method: String? = nil, _ route: String) -> Int {
        instruments.counter.count(method: method, route: route + "#304")
    }

    /// Requests received by `route` with any method.
    public func requestCount(_ route: String) -> Int {
        instruments.counter.count(method: nil, route: route)
    }

    /// Returns once `route` has received at least `count` requests (of `method`, or of any method
    /// with `nil`): a way for tests to act at a known point without sleeping.
    public func waitForRequests(_ method: String? = nil, _ route: String, count: Int = 1) async {
        await instruments.counter.wait(method: method, route: route, count: count)
    }

    /// Every count, keyed `"METHOD /route"`.
    public var requestCounts: [String: Int] { instruments.counter.all }

    /// Sets every count to zero.
    public func resetCounters() { instruments.counter.reset() }

    /// Requests `/flaky/{key}` has received for `key`; with `cached/name`, the requests
    /// `/cached/{name}` served for `name`; with `ranged/<count>/bytes`, the bytes
    /// `/ranged/{count}` sent; with `uploads/received`, the body bytes the resumable-upload routes
    /// took, and with `uploads/drops`, the bodies cut for a `Test-Drop-Every` header.
    public func flakyAttempts(_ key: String) -> Int { instruments.tally.count(key) }

    /// The byte at `index` of every `/ranged/{count}` file of `version`.
    public static func rangedByte(_ index: Int, version: String = "1") -> UInt8 { TestRoutes.rangedByte(index, version: version) }

    /// Lets every `/hold/{key}` for `key` answer, now and later.
    public func release(_ key: String) { instruments.gate.release(key) }

    /// Stops the server as ``stop(gracePeriod:)`` does and keeps its port bound, not listening,
    /// until ``releasePort()``: its URL refuses connections, as a server that is gone does, and
    /// no server started meanwhile on port 0 (in this process or another) is given the port and
    /// answers in its place. Release it right before a server starts on the port again:
    ///
    /// ```swift
    /// try await server.stopHoldingPort()
    /// // … requests to server.baseURL fail with cannotConnect …
    /// server.releasePort()
    /// let back = try await ImageStoreServer.instrumented(ServerConfiguration(port: server.port, databasePath: path))
    /// ```
    /// - Throws: when the port cannot be bound again (the server is stopped all the same).
    public func stopHoldingPort(gracePeriod: Duration = .seconds(2)) async throws {
        await stop(gracePeriod: gracePeriod)
        let hold = try PortHold(host: host, port: port)
        instruments.heldPort.withLock { $0 = hold }
    }

    /// Unbinds the port ``stopHoldingPort(gracePeriod:)`` kept; does nothing if none is held.
    public func releasePort() {
        instruments.heldPort.withLock { held in
            defer { held = nil }
            return held
        }?.release()
    }
}
