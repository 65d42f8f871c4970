extension APIClient {
    /// One network attempt, in one shape whatever the transport: a ``RedirectingExchange`` on the
    /// client's ``CallbackTransport``, shared with identical requests in flight when the request may
    /// share, else the caller's own; with the span's trace context when allowed.
    func attempt(
        _ wire: TransportRequest, settings: RequestSettings, observer: TransferObserver, record: inout RequestRecord
    ) async throws -> TransportResponse {
        record.metrics.attempts += 1
        let started = ContinuousClock.now
        var traced = wire
        let traceHeaders = injectTraceContext(into: &traced, record: record)
        do {
            var joined = false
            let response: TransportResponse
            // The key is the request without its trace context, which differs for every span.
            if sharesExchanges(settings), !RefreshCoordinator.isRefreshing, let key = ExchangeKey(wire) {
                (response, joined) = try await inFlight.send(key, observer: observer) { fanOut in
                    RedirectingExchange(client: self, request: traced, observer: fanOut, traceHeaders: traceHeaders)
                }
            } else {
                let exchange = RedirectingExchange(client: self, request: traced, observer: observer, traceHeaders: traceHeaders)
                response = try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        exchange.start { continuation.resume(with: $0) }
                    }
                } onCancel: {
                    exchange.cancel()
                }
            }
            recordAttempt(&record, wire: wire, response: response, joined: joined, started: started)
            return response
        } catch {
            recordAttempt(&record, wire: wire, response: nil, joined: false, started: started)
            throw error
        }
    }

    /// Whether the request may share an identical request's exchange.
    private func sharesExchanges(_ settings: RequestSettings) -> Bool {
        if let chosen = settings.deduplication { return chosen }
        return configuration.deduplicatesRequests && (settings.method == .get || settings.method == .head)
    }
}
