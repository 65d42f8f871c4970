import Hummingbird

/// Records each routed request in a ``RequestCounter`` under its route pattern.
struct CountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let counter: RequestCounter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        counter.record(method: request.method.rawValue, route: context.endpointPath ?? request.uri.path)
        return try await next(request, context)
    }
}
