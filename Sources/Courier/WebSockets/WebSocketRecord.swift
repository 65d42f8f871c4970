import CoreMetrics
import Foundation
import Tracing

/// The record of one WebSocket connection, kept open from its handshake until it closes: its
/// messages and bytes each way (counted as they pass, when metrics are on), then once, at the
/// end, its duration, close code and span.
final class WebSocketRecord: Sendable {
    private struct State {
        var record: RequestRecord?
        var sent = (messages: Int64(0), bytes: Int64(0))
        var received = (messages: Int64(0), bytes: Int64(0))
    }

    /// The counters a message moves, made once per connection when metrics are on.
    private struct Counters: Sendable {
        let messagesSent: any CounterHandler
        let messagesReceived: any CounterHandler
        let bytesSent: any CounterHandler
        let bytesReceived: any CounterHandler
    }

    private let client: APIClient
    private let state: Locked<State>
    private let counters: Counters?

    init(client: APIClient, record: RequestRecord) {
        self.client = client
        state = Locked(State(record: record))
        if let metrics = client.observability.metrics {
            func counter(_ metric: CourierMetrics.Metric, _ detail: String?) -> any CounterHandler {
                let series = client.series(metric, record, detail: detail)
                return metrics.counter(series)
            }
            counters = Counters(
                messagesSent: counter(.webSocketMessages, "sent"), messagesReceived: counter(.webSocketMessages, "received"),
                bytesSent: counter(.bytesSent, nil), bytesReceived: counter(.bytesReceived, nil))
        } else {
            counters = nil
        }
    }

    /// Which way a message went.
    enum Direction {
        case sent, received
    }

    /// One message went `direction`.
    func count(_ message: WebSocketMessage, _ direction: Direction) {
        let size = Int64(message.size)
        state.withLock { state in
            switch direction {
            case .sent: state.sent = (state.sent.messages + 1, state.sent.bytes + size)
            case .received: state.received = (state.received.messages + 1, state.received.bytes + size)
            }
        }
        guard let counters else { return }
        let (messages, bytes) = direction == .sent
            ? (counters.messagesSent, counters.bytesSent) : (counters.messagesReceived, counters.bytesReceived)
        messages.increment(by: 1)
        bytes.increment(by: size)
    }

    /// The connection ended: with `closeCode` (the peer's), and `failure` when it did not close
    /// cleanly. Only the first call counts.
    func end(closeCode: WebSocketCloseCode?, failure: CourierError?) {
        guard let (record, sent, received) = state.withLock({ state -> (RequestRecord, (messages: Int64, bytes: Int64), (messages: Int64, bytes: Int64))? in
            guard let record = state.record else { return nil }
            state.record = nil
            return (record, state.sent, state.received)
        }) else { return }
        var ended = record
        ended.metrics.bytesSent += sent.bytes
        ended.metrics.bytesReceived += received.bytes
        if let metrics = client.observability.metrics {
            metrics.count(client.series(.webSocketCloses, record, detail: closeCode.map(Self.dimension) ?? "none"))
        }
        if let span = record.span, span.isRecording {
            span.updateAttributes { attributes in
                attributes.set("courier.websocket.messages_sent", value: .int64(sent.messages))
                attributes.set("courier.websocket.messages_received", value: .int64(received.messages))
                attributes.set("courier.websocket.bytes_sent", value: .int64(sent.bytes))
                attributes.set("courier.websocket.bytes_received", value: .int64(received.bytes))
                if let closeCode { attributes.set("courier.websocket.close_code", value: .int64(Int64(closeCode.rawValue))) }
            }
        }
        if let failure {
            _ = client.finish(&ended, failure: failure)
        } else {
            _ = client.finish(&ended, source: .network, statusCode: 101)
        }
    }

    /// A close code as a metrics dimension: the standard ones by number, an application's by range
    /// (`4xxx`), so that the series stay few.
    private static func dimension(_ code: WebSocketCloseCode) -> String {
        code.rawValue < 3000 ? String(code.rawValue) : "\(code.rawValue / 1000)xxx"
    }
}
