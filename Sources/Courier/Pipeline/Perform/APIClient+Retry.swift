extension APIClient {
    /// Tells the delegate and the metrics about a retry, then waits `delay`; a cancellation ends
    /// the wait at once and throws.
    func backOff(
        _ request: TransportRequest, after failure: CourierError, delay: Duration, schedule: AttemptSchedule,
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
        try await schedule.wait(delay)
        record.metrics.backoff += delay
    }
}
