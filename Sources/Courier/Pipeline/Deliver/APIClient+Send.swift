import Foundation

// The pipeline, top to bottom, one folder of Pipeline/ a stage. The main line of a plain GET on
// async-http-client, there and back, crosses these ten files (side calls that return at once,
// for records, logs, keys, checks and progress without handlers, are not counted):
//   1 Deliver/APIClient+Send          send → deliver → recorded: the record; a failure reported once, after every fallback
//   2 Plan/APIClient+Cache            → serve: cache plan; cached answer, or perform → decode → store; stale and offline
//                                       fallbacks (+Revalidation: stale-while-revalidate's background revalidation)
//   3 Perform/APIClient+Perform       → perform: prepare, adapt, attempt, capture/refresh, retry, validate
//   4 Prepare/APIClient+Prepare       → prepare: URL, body, the app's own values checked before sending
//   5 Exchange/APIClient+Attempt      → attempt → InFlightExchanges.send → SharedExchange.start (one exchange, shared
//                                       with identical requests in flight), then the caller waits: SharedExchange.wait;
//                                       the exchange: RedirectingExchange.start → send(hop:), the one redirect loop,
//                                       asking RedirectRules
//   6 Support/WaitingRoom             → WaitingRoom.wait: the caller's continuation, parked until the exchange ends
//   7 Transport/ExchangeControl       → NetworkTransport.start: a refusal, or the first try under an ExchangeControl
//   8 CourierAsyncHTTPClient/…+Callback → start(control:): HTTPClient.execute with a ResponseDelegate
//                                       (on URLSession: Transport/URLSessionTransport+DelegateTask, then URLSessionExchange)
//  and back, on the transport's thread:
//   9 CourierAsyncHTTPClient/ResponseDelegate  didReceiveHead → didReceiveBodyPart → didFinishRequest → the completion
//   5   RedirectRules.next: not a redirect, so finish → SharedExchange's completion → WaitingRoom.finish (6),
//       which resumes the caller; attempt returns (5), perform checks the status (3), serve decodes (2):
//  10 Decode/ResponseSerializer       → decode → the serializer (at the root key path: +Root); deliver ends the record (1)
// Beside them: Authenticate (credentials captured and injected; one refresh for many 401s) and
// Record (metrics, spans, answer observers).
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
        try await recorded(request.settings, id: id) { record throws(CourierError) in
            var response = try await serve(request, record: &record, cached: cached)
            response.metrics = finish(&record, source: response.source, statusCode: response.statusCode)
            if response.source == .network { notifyAnswer(from: response.url) }
            return response
        }
    }

    /// The one frame of every exchange: a send, a stream, each attempt of a download, a background
    /// revalidation. Begins the record of `settings` and runs `work` with it; when `work` throws,
    /// finishes the record with the failure and reports it once, to the delegate and the presenter
    /// (with `reportsFailure` false, for work nobody waits on, it is only returned). `work`
    /// finishes the record itself when it succeeds: a stream's stays open until its body is read.
    /// Inlined, so the frame costs a plain GET nothing over writing it out in place.
    @inline(__always)
    func recorded<Result>(
        _ settings: RequestSettings, id: RequestID = .next(), streamsBody: Bool = false, reportsFailure: Bool = true,
        _ work: (inout RequestRecord) async throws(CourierError) -> Result
    ) async throws(CourierError) -> Result {
        var record = beginRecord(settings, id: id, streamsBody: streamsBody)
        do throws(CourierError) {
            return try await work(&record)
        } catch {
            let failure = finish(&record, failure: error)
            guard reportsFailure else { throw failure }
            throw await report(failure, record: record, settings: settings)
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
