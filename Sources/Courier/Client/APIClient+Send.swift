import Foundation
import Logging

extension APIClient {
    /// Sends `request` and returns its decoded response.
    ///
    /// Cancelling the calling task cancels the request, which then throws a
    /// ``CourierError/Kind/cancelled`` error.
    /// - Throws: ``CourierError`` for every failure: a bad URL or body, a transport failure, a status
    ///   outside ``ClientConfiguration/acceptableStatusCodes``, or a body that does not decode.
    public func send<Value>(_ request: Request<Value>) async throws(CourierError) -> Response<Value> {
        try await deliver(request, id: .next(), cached: nil)
    }

    /// The network leg: perform, then decode; stores or invalidates per `plan`.
    func network<Value>(
        _ request: Request<Value>, parts: RequestParts, id: RequestID, record: inout RequestRecord, plan: CachePlan?
    ) async throws(CourierError) -> Response<Value> {
        let (response, wire) = try await perform(parts, id: id, record: &record)
        let decoded: Response<Value>
        do {
            decoded = try decode(response, for: request, id: id, start: record.start, source: .network)
        } catch {
            throw await fail(error, id: id, url: response.url, sent: wire, parts: parts, record: record)
        }
        if let plan { self.record(response, method: wire.method, plan: plan) }
        return decoded
    }

    /// Everything but decoding: prepare, adapt, send (following redirects, sharing an identical
    /// exchange in flight, retrying under the ``RetryPolicy``), capture credentials, refresh once
    /// after a 401, run the response hooks, validate the status. Not generic, so it is compiled
    /// once and specialised.
    func perform(
        _ request: RequestParts, id: RequestID, record: inout RequestRecord
    ) async throws(CourierError) -> (TransportResponse, TransportRequest) {
        var url: URL?
        var sent: TransportRequest?
        do {
            let queue = request.callbackQueue ?? configuration.callbackQueue
            let upload = request.uploadProgress.map { ProgressRelay(handler: $0, queue: queue) }
            let download = request.downloadProgress.map { ProgressRelay(handler: $0, queue: queue) }
            let observer = TransferObserver(upload: upload.map { $0.report }, download: download.map { $0.report })
            let policy = request.retryPolicy ?? configuration.retryPolicy
            let retries = policy.allows(request.method)
            let firstStart = ContinuousClock.now
            var refreshedCredentials = false
            while true {
                var (wire, credentialsVersion) = try prepare(request)
                url = wire.url
                if let delegate = configuration.delegate {
                    wire = try await delegate.client(self, willSend: wire)
                }
                sent = wire
                log(id, wire)
                var response: TransportResponse
                do {
                    response = try await attempt(wire, parts: request, observer: observer, record: &record)
                } catch {
                    let failure = CourierError.wrap(error, url: wire.url)
                    guard retries, !Task.isCancelled, policy.retries(failure.classification),
                          let delay = retryDelay(policy, record: record, since: firstStart, retryAfter: nil)
                    else { throw failure }
                    try await backOff(wire, after: failure, delay: delay, policy: policy, record: &record)
                    continue
                }
                authentication?.capture(from: response)
                log(id, response)
                if !refreshedCredentials, try await refreshed(after: response, sentVersion: credentialsVersion) {
                    refreshedCredentials = true
                    continue
                }
                if retries, policy.retries(statusCode: response.statusCode),
                   let delay = retryDelay(
                       policy, record: record, since: firstStart, retryAfter: RetryAfter.delay(response.headers["Retry-After"])) {
                    if let delegate = configuration.delegate {
                        await delegate.client(self, didReceive: response, for: wire)
                    }
                    try await backOff(wire, after: statusFailure(response, method: wire.method), delay: delay, policy: policy, record: &record)
                    continue
                }
                if response.statusCode == 304, let stored = request.revalidating {
                    response = stored.revalidated(by: response)
                }
                await upload?.flush()
                await download?.flush()
                if let delegate = configuration.delegate {
                    await delegate.client(self, didReceive: response, for: wire)
                    if let rejection = await delegate.client(self, errorFor: response, request: wire) {
                        throw rejected(response, by: rejection)
                    }
                }
                if !response.answersCallersOwnCondition(wire, revalidating: request.revalidating != nil),
                   !configuration.acceptableStatusCodes.contains(response.statusCode) {
                    throw statusFailure(response, method: wire.method)
                }
                return (response, wire)
            }
        } catch {
            throw await fail(error, id: id, url: url, sent: sent, parts: request, record: record)
        }
    }

    /// One network attempt: through an identical exchange in flight when the request may share
    /// one, else its own; with the span's trace context when allowed.
    private func attempt(
        _ wire: TransportRequest, parts: RequestParts, observer: TransferObserver, record: inout RequestRecord
    ) async throws -> TransportResponse {
        record.metrics.attempts += 1
        let started = ContinuousClock.now
        var traced = wire
        let traceHeaders = injectTraceContext(into: &traced, record: record)
        do {
            var joined = false
            let response: TransportResponse
            if sharesExchanges(parts), !RefreshCoordinator.isRefreshing, let key = ExchangeKey(wire) {
                let body: SharedExchange.Body
                if let callbackTransport {
                    body = .callback { [self, traced] shared, completion in
                        let exchange = RedirectingExchange(
                            client: self, transport: callbackTransport, request: traced, observer: shared,
                            traceHeaders: traceHeaders, completion: completion)
                        exchange.start()
                        return { exchange.cancel() }
                    }
                } else {
                    body = .task { [self, traced] shared in
                        try await exchange(traced, observer: shared, traceHeaders: traceHeaders)
                    }
                }
                let outcome = try await inFlight.send(key, observer: observer, body: body)
                (response, joined) = (outcome.response, outcome.joined)
            } else {
                response = try await exchange(traced, observer: observer, traceHeaders: traceHeaders)
            }
            recordAttempt(&record, wire: wire, response: response, joined: joined, started: started)
            return response
        } catch {
            recordAttempt(&record, wire: wire, response: nil, joined: false, started: started)
            throw error
        }
    }

    /// Whether the request may share an identical request's exchange.
    private func sharesExchanges(_ request: RequestParts) -> Bool {
        if let chosen = request.deduplication { return chosen }
        return configuration.deduplicatesRequests && (request.method == .get || request.method == .head)
    }

    /// Completes a failure (classification, user message, attempts), tells the delegate and the presenter.
    func fail(
        _ error: any Error, id: RequestID, url: URL?, sent: TransportRequest?, parts: RequestParts, record: RequestRecord
    ) async -> CourierError {
        var failure = CourierError.wrap(error, url: url)
        if Task.isCancelled, failure.kind == .transport { failure = .cancelled(url) }
        failure.requestID = id
        if record.metrics.attempts > 1, failure.metrics == nil {
            failure.message += " (\(record.metrics.attempts) attempts)"
        }
        failure.metrics = record.metrics
        failure = configuration.errorHandling.complete(failure)
        await report(failure, request: sent, suppressPresentation: parts.suppressErrorAlert)
        return failure
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
            "Courier \(id) → \(request.method) \(request.url.absoluteString) \(request.headers.redacted(sensitiveHeaders)) \(request.body?.count ?? 0) bytes")
    }

    private func log(_ id: RequestID, _ response: TransportResponse) {
        guard logsRequests else { return }
        configuration.logger.debug(
            "Courier \(id) ← \(response.statusCode) \(response.url.absoluteString) \(response.headers.redacted(sensitiveHeaders)) \(response.body.count) bytes")
    }

    /// Headers never written to logs: credentials, cookies and the configured authentication headers.
    var sensitiveHeaders: [String] {
        ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"] + configuration.redirects.sensitiveHeaders + configuration.authenticationHeaders
    }

    /// Tells the delegate and the presenter about a failure.
    private func report(_ failure: CourierError, request: TransportRequest?, suppressPresentation: Bool) async {
        if let delegate = configuration.delegate {
            await delegate.client(self, didFailWith: failure, request: request)
        }
        if !suppressPresentation, !failure.isCancelled, let presenter = configuration.errorPresenter {
            await presenter.present(failure, logger: configuration.logger)
        }
    }

    private func rejected(_ response: TransportResponse, by rejection: any Error) -> CourierError {
        if var error = rejection as? CourierError {
            error.url = error.url ?? response.url
            return error
        }
        return CourierError(
            .rejected, "The response to \(response.url.path) was rejected: \(rejection.localizedDescription)",
            url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
            underlyingError: rejection)
    }

    /// The error for a response whose status is not acceptable.
    func statusFailure(_ response: TransportResponse, method: HTTPMethod) -> CourierError {
        CourierError(
            .httpStatus(response.statusCode),
            "The server answered \(response.statusCode) (\(HTTPStatus.reason(response.statusCode))) to \(method) \(response.url.path).",
            url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
    }

    /// Decodes a response into the request's value type.
    func decode<Value>(
        _ response: TransportResponse, for request: Request<Value>, id: RequestID, start: ContinuousClock.Instant,
        source: ResponseSource
    ) throws(CourierError) -> Response<Value> {
        let context = SerializationContext(
            statusCode: response.statusCode, headers: response.headers, decoder: request.decoder ?? configuration.decoder)
        let value: Value
        do {
            value = try request.serializer.serialize(response.body, context)
        } catch {
            var failure = CourierError(
                .decodingFailed, "The response to \(request.method) \(response.url.path) could not be read as \(Value.self): \(DecodingErrorText.describe(error))",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
                underlyingError: error)
            failure.keyPath = DecodingErrorText.keyPath(of: error)
            throw failure
        }
        return Response(
            value: value, statusCode: response.statusCode, headers: response.headers, data: response.body,
            url: response.url, source: source, requestID: id, duration: ContinuousClock.now - start)
    }
}

extension TransportResponse {
    /// Whether this is a 304 to a conditional request the caller made itself (its own
    /// `If-None-Match` or `If-Modified-Since`, not Courier's revalidation of a cached entry): the
    /// caller asked "has it changed?", and "no" is an answer, not an error. Its body is empty.
    func answersCallersOwnCondition(_ request: TransportRequest, revalidating: Bool) -> Bool {
        statusCode == 304 && !revalidating
            && (request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since"))
    }
}
