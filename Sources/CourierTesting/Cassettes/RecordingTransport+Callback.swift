import Courier
import Foundation

/// The start-and-call-back shape ``APIClient`` runs exchanges in: a replayed answer completes at
/// once, and a recording starts the wrapped transport's own callback exchange when it has one, so
/// a cassette adds no task and no thread hop of its own. The completion runs with the cassette as
/// the current one, so the next hop of a redirect (started from the completion, on the
/// transport's thread) finds the same cassette.
extension RecordingTransport: CallbackTransport {
    /// Replays, records or fails `request` as the cassette's plan says, calling `completion` once.
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        let cassette: Cassette
        do {
            cassette = try Cassette.chosen(self.cassette, for: request)
        } catch {
            completion(.failure(error))
            return {}
        }
        @Sendable func finish(_ result: Result<TransportResponse, any Error>) { Cassette.$current.withValue(cassette) { completion(result) } }
        switch cassette.plan(for: request, canRecord: true) {
        case .replay(let entry, let shownURL):
            finish(Result { try entry.answer(request, shownURL: shownURL, observer: observer) })
            return {}
        case .miss(let error):
            finish(.failure(error))
            return {}
        case .record(let redacted):
            let started = Date()
            let clock = ContinuousClock()
            let start = clock.now
            let record: @Sendable (Result<TransportResponse, any Error>) -> Void = { result in
                finish(result.flatMap { response in
                    Result {
                        try cassette.record(redacted, stream: request.bodyStream, response: response, started: started, duration: clock.now - start)
                        return response
                    }
                })
            }
            // A streamed body is recorded whole, when it has ended: the wrapped transport gathers it,
            // and the client reads it as one piece.
            var whole = request
            whole.streamsBody = false
            if let base = base as? any CallbackTransport { return base.start(whole, observer: observer, completion: record) }
            let task = Task<Void, Never>.startingHere { [whole] in
                do { record(.success(try await base.send(whole, observer: observer))) } catch { record(.failure(error)) }
            }
            return { task.cancel() }
        }
    }
}

extension ReplayTransport: CallbackTransport {
    /// Answers at once, with the cassette as the current one while the completion runs.
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        do {
            let cassette = try Cassette.chosen(self.cassette, for: request)
            let result = Result { try cassette.replay(request, observer: observer) }
            Cassette.$current.withValue(cassette) { completion(result) }
        } catch {
            completion(.failure(error))
        }
        return {}
    }
}
