import Hummingbird

/// Records each routed request in a ``RequestCounter`` under its route pattern.
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
