import Hummingbird

/// Assembles the server's routes. Each feature adds its routes here.
enum ServerRouter {
    static func build(
        counter: RequestCounter, database: ServerDatabase, accounts: AccountStore, maximumImageSize: Int,
        ledger: FlakyLedger, gate: HoldGate, idempotency: IdempotencyLedger
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let diagnostics = DiagnosticRoutes(counter: counter)
        diagnostics.addUncounted(to: router)
        OpenAPIRoutes().add(to: router)
        router.add(middleware: CountingMiddleware(counter: counter))
        router.add(middleware: IdempotencyMiddleware(ledger: idempotency))
        diagnostics.add(to: router)
        ErrorRoutes().add(to: router)
        AuthRoutes(accounts: accounts).add(to: router)
        DocumentRoutes(database: database).add(to: router)
        LogRoutes(database: database).add(to: router)
        ImageRoutes(database: database, maximumImageSize: maximumImageSize).add(to: router)
        UploadSinkRoutes().add(to: router)
        StreamRoutes().add(to: router)
        ResilienceRoutes(ledger: ledger, gate: gate).add(to: router)
        return router
    }
}
