import Hummingbird

/// Assembles the server's routes. Each feature adds its routes here.
enum ServerRouter {
    static func build(
        counter: RequestCounter, database: ServerDatabase, accounts: AccountStore, maximumImageSize: Int,
        ledger: FlakyLedger, gate: HoldGate, idempotency: IdempotencyLedger, testRoutes: Bool
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let diagnostics = DiagnosticRoutes(counter: counter)
        if testRoutes { diagnostics.addUncounted(to: router) }
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
        let resilience = ResilienceRoutes(ledger: ledger, gate: gate)
        resilience.add(to: router)
        if testRoutes { resilience.addTestRoutes(to: router) }
        return router
    }
}
