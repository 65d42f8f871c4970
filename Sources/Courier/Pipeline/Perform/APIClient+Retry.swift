extension APIClient {
    /// The wait before the next attempt, or `nil` when the policy allows no more: attempts used
    /// up, or the wait would end past the budget. `retryAfter` (the server's `Retry-After`)
    /// replaces the jittered delay.
    func retryDelay(
        _ policy: RetryPolicy, record: RequestRecord, since firstStart: ContinuousClock.Instant, retryAfter: Duration?
    ) -> Duration? {
        let retry = record.metrics.retries + 1
        guard retry < policy.maximumAttempts else { return nil }
        let delay = retryAfter ?? policy.jitteredDelay(beforeRetry: retry)
        guard ContinuousClock.now - firstStart + delay <= policy.budget else { return nil }
        return delay
    }

    /// Tells the delegate and the metrics about a retry, then waits `delay`; a cancellation ends
    /// the wait at once and throws.
    func backOff(
        _ request: TransportRequest, after failure: CourierError, delay: Duration, policy: RetryPolicy,
        record: inout RequestRecord
    ) async throws {
        record.metrics.retries += 1
        recordRetry(record)
        if logsRequests {
            configuration.logger.debug(
                "Courier retries \(request.method) \(request.url.redactedForTelemetry) in \(delay) after attempt \(record.metrics.attempts): \(failure.message)")
        }
        if let delegate = configuration.delegate {
            await delegate.client(self, willRetry: request, after: failure, attempt: record.metrics.attempts, delay: delay)
        }
        try await policy.sleeper.sleep(for: delay)
        try Task.checkCancellation()
        record.metrics.backoff += delay
    }
}
