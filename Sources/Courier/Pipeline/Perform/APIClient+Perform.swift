import Foundation
import Logging

extension APIClient {
    /// Everything but decoding: prepare, adapt, attempt (following redirects, sharing an identical
    /// exchange in flight), capture credentials, refresh once after a 401, retry under the
    /// ``RetryPolicy``, run the response hooks, validate the status. Not generic, so it is compiled
    /// once. A failure comes out completed (classified, with its user message and metrics) but not
    /// reported: ``deliver(_:id:cached:)`` reports it once a fallback had its chance.
    func perform(
        _ settings: RequestSettings, record: inout RequestRecord
    ) async throws(CourierError) -> TransportResponse {
        do {
            let observer = progressObserver(for: settings)
            // Read in place: the policy is copied, and the clock read, only for a request that may
            // be retried (most are not, and a copy of a policy costs a plain GET a few hundred
            // instructions).
            let mayRetry = settings.retryPolicy?.allows(settings.method) ?? configuration.retryPolicy.allows(settings.method)
            var schedule = mayRetry ? AttemptSchedule(settings.retryPolicy ?? configuration.retryPolicy) : nil
            var refreshedCredentials = false
            while true {
                var (wire, credentialsVersion) = try prepare(settings, streamsBody: record.streamsBody, urlBase: record.urlBase)
                record.sent = wire
                if let delegate = configuration.delegate {
                    wire = try await delegate.client(self, willSend: wire)
                    record.sent = wire
                    try RequestValidation.check(wire, "The request APIClientDelegate.client(_:willSend:) returned")
                }
                log(record.id, wire)
                var response: TransportResponse
                do {
                    response = try await attempt(wire, settings: settings, observer: observer.transfer, record: &record)
                } catch {
                    let failure = CourierError.wrap(error, url: wire.url)
                    guard var current = schedule, !Task.isCancelled, current.policy.retries(failure.kind), let delay = current.retry() else {
                        throw failure
                    }
                    schedule = current
                    try await backOff(wire, after: failure, delay: delay, schedule: current, record: &record)
                    continue
                }
                authentication?.capture(from: response)
                log(record.id, response)
                // Checked before the call: an async call costs a frame on the task's allocator,
                // and nearly every answer is not a 401.
                if !refreshedCredentials, response.statusCode == 401, try await refreshed(after: response, sentVersion: credentialsVersion) {
                    refreshedCredentials = true
                    continue
                }
                if var current = schedule, current.policy.retries(statusCode: response.statusCode),
                   let delay = current.retry(asked: RetryAfter.delay(response.headers["Retry-After"])) {
                    schedule = current
                    if let delegate = configuration.delegate {
                        await delegate.client(self, didReceive: response, for: wire)
                    }
                    try await backOff(wire, after: statusFailure(response, method: wire.method), delay: delay, schedule: current, record: &record)
                    continue
                }
                if response.statusCode == 304, let stored = record.revalidating {
                    response = stored.revalidated(by: response, excluding: configuration.authenticationHeaders)
                }
                if observer.hasRelays { await observer.flush() }
                if let delegate = configuration.delegate {
                    await delegate.client(self, didReceive: response, for: wire)
                    if let rejection = await delegate.client(self, errorFor: response, request: wire) {
                        throw rejected(response, by: rejection)
                    }
                }
                if !response.answersCallersOwnCondition(wire, revalidating: record.revalidating != nil),
                   !configuration.acceptableStatusCodes.contains(response.statusCode),
                   record.upgrade == nil || response.statusCode != 101 {
                    throw statusFailure(response, method: wire.method)
                }
                return response
            }
        } catch {
            throw complete(error, record: record)
        }
    }

    /// Completes a failure: classification, user message, request id, attempts and metrics so far.
    func complete(_ error: any Error, record: RequestRecord) -> CourierError {
        var failure = CourierError.wrap(error, url: record.sent?.url)
        if Task.isCancelled, failure.kind == .transport { failure = .cancelled(record.sent?.url) }
        failure.requestID = record.id
        if record.metrics.attempts > 1, failure.metrics == nil {
            failure.message += " (\(record.metrics.attempts) attempts)"
        }
        failure.metrics = record.metrics
        return configuration.errorHandling.complete(failure, validationParser: configuration.validationErrorParser)
    }

    /// After a 401 to a request that carried credentials, runs the authenticator (once for all
    /// waiting requests) and says whether to retry.
    private func refreshed(after response: TransportResponse, sentVersion: Int) async throws -> Bool {
        guard response.statusCode == 401, let authenticator = configuration.authenticator, let authentication,
              !RefreshCoordinator.isRefreshing
        else { return false }
        return try await refresher.refresh(
            sentVersion: sentVersion, currentVersion: { authentication.current.version },
            perform: { try await authenticator.refreshCredentials(using: self) })
    }

    private func log(_ id: RequestID, _ request: TransportRequest) {
        guard logsRequests else { return }
        configuration.logger.debug(
            "Courier \(id) → \(request.method) \(request.url.absoluteString) \(request.headers.redacted(secretHeaders)) \(request.body?.count ?? 0) bytes")
    }

    private func log(_ id: RequestID, _ response: TransportResponse) {
        guard logsRequests else { return }
        configuration.logger.debug(
            "Courier \(id) ← \(response.statusCode) \(response.url.absoluteString) \(response.headers.redacted(secretHeaders)) \(response.body.count) bytes")
    }
}
