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
                if case .success(let response) = result, let live = response.liveBody {
                    // A body read as it arrives reaches the reader as it arrives, and the
                    // cassette when it ends (read to the end, failed, or stopped by the reader).
                    return finish(.success(Self.relay(response, from: live) { (arrived) throws(CourierError) in
                        try cassette.record(redacted, stream: request.bodyStream, response: arrived, started: started, duration: clock.now - start)
                    }))
                }
                finish(result.flatMap { response in
                    Result {
                        try cassette.record(redacted, stream: request.bodyStream, response: response, started: started, duration: clock.now - start)
                        return response
                    }
                })
            }
            if let base = base as? any CallbackTransport { return base.start(request, observer: observer, completion: record) }
            let task = Task<Void, Never>.startingHere {
                do { record(.success(try await base.send(request, observer: observer))) } catch { record(.failure(error)) }
            }
            return { task.cancel() }
        }
    }
}

extension RecordingTransport {
    /// `response` with a body that hands on each piece of `live` as it comes, and keeps a copy.
    /// When `live` ends, `record` gets the response with what arrived as its body, and the reader
    /// then gets the end (or the recording's error); when the reader stops first (how an endless
    /// event stream is left), what arrived is recorded before ``LiveBody/stop()`` returns. The
    /// copy is the whole body in memory: a cassette holds bodies whole.
    static func relay(
        _ response: TransportResponse, from live: LiveBody, record: @escaping @Sendable (TransportResponse) throws(CourierError) -> Void
    ) -> TransportResponse {
        let relay = LiveBody(url: live.url)
        let copy = Locked<Data?>(Data())  // nil once recorded
        @Sendable func recordOnce() -> CourierError? {
            guard let arrived = copy.withLock({ copy in defer { copy = nil }; return copy }) else { return nil }
            var recorded = response
            recorded.liveBody = nil
            recorded.body = arrived
            do throws(CourierError) {
                try record(recorded)
                return nil
            } catch {
                return error
            }
        }
        let pump = Task {
            var failure: CourierError?
            do throws(CourierError) {
                while let piece = try await live.next() {
                    copy.withLock { $0?.append(piece) }
                    // The copy holds the body anyway, so the reader's pace need not slow the network.
                    _ = relay.deliver(piece) {}
                }
            } catch {
                failure = error
            }
            let recordingFailure = recordOnce()
            relay.finish(failure ?? recordingFailure)
        }
        relay.onStop {
            pump.cancel()
            live.stop()
            _ = recordOnce()
        }
        var relayed = response
        relayed.liveBody = relay
        return relayed
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
