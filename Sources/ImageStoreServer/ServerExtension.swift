import Hummingbird

/// Routes and middleware another module adds to an ``ImageStoreServer`` it starts, through
/// ``ServerConfiguration/extensions``: the way `ImageStoreTesting` adds the counters and routes
/// Courier's own tests and benchmarks use, and the way an app's tests can add routes of their own.
///
/// ```swift
/// struct Teapot: ServerExtension {
///     func addLast(to router: Router<BasicRequestContext>) {
///         router.get("teapot") { _, _ in Response(status: .init(code: 418)) }
///     }
/// }
/// var configuration = ServerConfiguration()
/// configuration.extensions = [Teapot()]
/// let server = try await ImageStoreServer.start(configuration)
/// ```
public protocol ServerExtension: Sendable {
    /// Called before the server adds its own middleware and routes. Hummingbird applies a
    /// middleware to the routes added after it, so a middleware added here sees every request the
    /// server routes, and a route added here before it is not seen by it.
    func addFirst(to router: Router<BasicRequestContext>)
    /// Called after the server added its own middleware, before its routes: a middleware added here
    /// sees only what the server's middleware passes on (not a write's replayed answer to a repeated
    /// `Idempotency-Key`).
    func addBeforeRoutes(to router: Router<BasicRequestContext>)
    /// Called after the server added its own routes.
    func addLast(to router: Router<BasicRequestContext>)
}

extension ServerExtension {
    /// Adds nothing.
    public func addFirst(to router: Router<BasicRequestContext>) {}
    /// Adds nothing.
    public func addBeforeRoutes(to router: Router<BasicRequestContext>) {}
    /// Adds nothing.
    public func addLast(to router: Router<BasicRequestContext>) {}
}
