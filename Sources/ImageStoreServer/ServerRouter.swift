import Hummingbird

/// Assembles the server's routes. Each feature adds its routes here.
enum ServerRouter {
    static func build(
        database: ServerDatabase, accounts: AccountStore, maximumImageSize: Int, idempotency: IdempotencyLedger,
        extensions: [any ServerExtension]
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        for addition in extensions { addition.addFirst(to: router) }
        OpenAPIRoutes().add(to: router)
        router.add(middleware: IdempotencyMiddleware(ledger: idempotency))
        for addition in extensions { addition.addBeforeRoutes(to: router) }
        DiagnosticRoutes().add(to: router)
        ErrorRoutes().add(to: router)
        AuthRoutes(accounts: accounts).add(to: router)
        DocumentRoutes(database: database).add(to: router)
        LogRoutes(database: database).add(to: router)
        ImageRoutes(database: database, maximumImageSize: maximumImageSize).add(to: router)
        UploadSinkRoutes().add(to: router)
        ResumableUploadRoutes().add(to: router)
        StreamRoutes().add(to: router)
        ResilienceRoutes().add(to: router)
        for addition in extensions { addition.addLast(to: router) }
        return router
    }
}
