import Foundation

/// The record of a request whose body the app reads as it arrives (``ResponseStream``), kept open
/// past the head until the reader has had the end of the body or its failure, or has stopped.
/// Then, once, the body's bytes and events are counted, the duration covers the stream's whole
/// life, and the span ends.
final class StreamRecord: Sendable {
    private struct State {
        var record: RequestRecord?
        /// Events read, once the body is read as events.
        var events: Int64?
    }

    private let client: APIClient
    private let statusCode: Int
    /// Body bytes the attempt counted already (a transport that gathered the body whole).
    private let countedAtHead: Int64
    private let state: Locked<State>

    init(client: APIClient, record: RequestRecord, response: TransportResponse) {
        self.client = client
        statusCode = response.statusCode
        countedAtHead = Int64(response.body.count)
        state = Locked(State(record: record))
    }

    /// The body is read as Server-Sent Events: its events are counted from now.
    func readsEvents() {
        state.withLock { $0.events = $0.events ?? 0 }
    }

    /// One more Server-Sent Event read from the body.
    func countEvent() {
        state.withLock { $0.events? += 1 }
    }

    /// The reader is done: `failure` ended the body, or `nil` for its end; `stopped` when the
    /// reader let it go first. Only the first call counts.
    func end(bytes: Int64, failure: CourierError?, stopped: Bool) {
        guard let (record, events) = state.withLock({ state -> (RequestRecord, Int64?)? in
            guard let record = state.record else { return nil }
            state.record = nil
            return (record, state.events)
        }) else { return }
        var ended = record
        client.recordBody(&ended, bytes: bytes - countedAtHead, outcome: RequestRecord.BodyOutcome(stoppedByReader: stopped, events: events))
        if let failure, !stopped {
            _ = client.finish(&ended, failure: failure)
        } else {
            _ = client.finish(&ended, source: .network, statusCode: statusCode)
        }
    }
}
