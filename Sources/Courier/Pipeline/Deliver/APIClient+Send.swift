import Foundation

// The pipeline, top to bottom, one folder of Pipeline/ a stage:
//   Deliver   deliver (here)         record, then report a failure once, after every fallback
//   Plan      serve (+Cache)         cache plan: cached answer, network, offline fallback
//   Perform   network (+Perform)     perform, decode, store in the cache
//   Perform   perform (+Perform)     prepare, adapt, attempt, capture/refresh, retry, validate
//   Prepare   (+Prepare)             URL, body, the app's own values checked before sending
//   Exchange  attempt (+Attempt)     one exchange, shared with identical requests in flight or alone
//   Exchange  RedirectingExchange    the one redirect loop, on the transport's callbacks
//   Authenticate (+Authentication)   credentials captured and injected; one refresh for many 401s
//   Decode    (+Decode)              the serializer, at the root key path
//   Record    (+Observability)       metrics, spans, answer observers
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

    /// The outermost layer of every request: starts its record, serves it (`cached` receives the
    /// cached response a ``CacheOption/both`` request delivers before the network's), ends the
    /// record, and reports a failure to the delegate and the presenter, once, after every
    /// fallback: a request answered from the cache is not a failure.
    func deliver<Value>(
        _ request: Request<Value>, id: RequestID, cached: ((Response<Value>) async -> Void)?
    ) async throws(CourierError) -> Response<Value> {
        var record = beginRecord(request.settings, id: id)
        do throws(CourierError) {
            var response = try await serve(request, id: id, record: &record, cached: cached)
            response.metrics = finish(&record, source: response.source, statusCode: response.statusCode)
            if response.source == .network { notifyAnswer(from: response.url) }
            return response
        } catch {
            throw await report(finish(&record, failure: error), record: record, settings: request.settings)
        }
    }

    /// Tells the delegate and the presenter about the failure a request ends with; returns it.
    func report(_ failure: CourierError, record: RequestRecord, settings: RequestSettings) async -> CourierError {
        if let delegate = configuration.delegate {
            await delegate.client(self, didFailWith: failure, request: record.sent)
        }
        if !settings.suppressErrorAlert, !failure.isCancelled, let presenter = configuration.errorPresenter {
            await presenter.present(failure, logger: configuration.logger)
        }
        return failure
    }
}
