import Hummingbird
import ImageStoreServer

/// Records each routed request in a ``RequestCounter`` under its route pattern, and its `304`
/// answers under the pattern and `#304`.
struct CountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let counter: RequestCounter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = context.endpointPath ?? request.uri.path
        counter.record(method: request.method.rawValue, route: route)
        let response = try await next(request, context)
        if response.status == .notModified {
            counter.record(method: request.method.rawValue, route: route + "#304")
        }
        return response
    }
}

/// Counts the requests `/flaky/{key}` answers in a tally under their key (a write the server's
/// middleware answered from its `Idempotency-Key` ledger is not among them).
struct FlakyTallyMiddleware<Context: RequestContext>: RouterMiddleware {
    let tally: Tally

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if context.endpointPath == "/flaky/{key}", let key = context.parameters.get("key") { _ = tally.next(key) }
        return try await next(request, context)
    }
}
