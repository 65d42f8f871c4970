import Courier
import Foundation

/// WebSocket sessions in cassettes: recorded as Chrome writes them into HAR (an entry with
/// `_resourceType: "websocket"` and `_webSocketMessages`), replayed from such an entry, whoever
/// wrote it (Chrome, mitmproxy, Courier).
extension RecordingTransport: WebSocketTransport {
    /// Replays the recorded session `request` matches, or opens one through ``base`` and records
    /// it: the handshake, then every message each way, written when the session ends (closed by
    /// either side, lost, or let go).
    package func openWebSocket(_ request: TransportRequest, options: WebSocketOptions) async throws -> WebSocketHandshake {
        let request = request.withHTTPScheme
        let cassette = try Cassette.chosen(self.cassette, for: request)
        switch cassette.plan(for: request, canRecord: true) {
        case .replay(let entry, let shownURL):
            return try entry.webSocketAnswer(request, shownURL: shownURL)
        case .miss(let error):
            throw error
        case .record(let redacted):
            guard let base = base as? any WebSocketTransport else {
                throw CourierError(
                    .invalidRequest, "\(type(of: base)) cannot open WebSockets, so RecordingTransport has none to record. Nothing was sent.",
                    url: redacted.url)
            }
            let started = Date()
            let clock = ContinuousClock()
            let start = clock.now
            let handshake = try await base.openWebSocket(request, options: options)
            let duration = clock.now - start
            guard let connection = handshake.connection else {
                try cassette.record(redacted, stream: nil, response: handshake.response, started: started, duration: duration)
                return handshake
            }
            let recording = RecordingWebSocketConnection(connection) { (session) throws(CourierError) in
                try cassette.record(redacted, stream: nil, response: handshake.response, started: started, duration: duration, webSocket: session)
            }
            return WebSocketHandshake(response: handshake.response, connection: recording)
        }
    }
}

extension ReplayTransport: WebSocketTransport {
    /// Replays the recorded session `request` matches; never the network.
    package func openWebSocket(_ request: TransportRequest, options: WebSocketOptions) async throws -> WebSocketHandshake {
        let request = request.withHTTPScheme
        switch try Cassette.chosen(cassette, for: request).plan(for: request, canRecord: false) {
        case .replay(let entry, let shownURL): return try entry.webSocketAnswer(request, shownURL: shownURL)
        case .miss(let error): throw error
        case .record: throw CourierError(.cassetteMiss, "A replay cannot record the WebSocket \(request.url.path). Nothing was sent.")
        }
    }
}

extension TransportRequest {
    /// The request with `ws` as `http` and `wss` as `https`, as cassettes match WebSocket sessions.
    fileprivate var withHTTPScheme: TransportRequest {
        guard let plain = ["ws": "http", "wss": "https"][url.scheme?.lowercased() ?? ""],
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return self }
        components.scheme = plain
        var request = self
        request.url = components.url ?? url
        return request
    }
}

extension CassetteEntry {
    /// The handshake's answer as recorded: a `101` with a connection that replays the session,
    /// or the refusal (its status and body) with none.
    func webSocketAnswer(_ request: TransportRequest, shownURL: URL) throws(CourierError) -> WebSocketHandshake {
        let response = try answer(request, shownURL: shownURL, observer: .none)
        guard status == 101 else { return WebSocketHandshake(response: response, connection: nil) }
        return WebSocketHandshake(
            response: response, connection: ReplayedWebSocketConnection(webSocket ?? RecordedWebSocket(messages: [], close: nil), url: shownURL))
    }
}

/// A live connection whose messages are kept, each way in order, for the cassette: handed over
/// once, when the session ends.
final class RecordingWebSocketConnection: WebSocketConnection {
    private let base: any WebSocketConnection
    /// `nil` once recorded.
    private let log = Locked<[RecordedWebSocket.Message]?>([])
    private let record: @Sendable (RecordedWebSocket) throws(CourierError) -> Void

    init(_ base: any WebSocketConnection, record: @escaping @Sendable (RecordedWebSocket) throws(CourierError) -> Void) {
        self.base = base
        self.record = record
    }

    var closeFrame: (code: WebSocketCloseCode, reason: String)? { base.closeFrame }

    func receive() async throws(CourierError) -> WebSocketMessage? {
        let message: WebSocketMessage?
        do {
            message = try await base.receive()
        } catch {
            _ = recordOnce()
            throw error
        }
        guard let message else {
            if let failure = recordOnce() { throw failure }
            return nil
        }
        log.withLock { $0?.append(RecordedWebSocket.Message(sent: false, time: Date().timeIntervalSince1970, message: message)) }
        return message
    }

    func send(_ message: WebSocketMessage) async throws(CourierError) {
        // Kept before it goes, so that an answer to it cannot be kept first.
        let time = Date().timeIntervalSince1970
        log.withLock { $0?.append(RecordedWebSocket.Message(sent: true, time: time, message: message)) }
        do {
            try await base.send(message)
        } catch {
            log.withLock { log in
                if let index = log?.lastIndex(where: { $0.sent && $0.time == time }) { log?.remove(at: index) }
            }
            throw error
        }
    }

    func ping() async throws(CourierError) {
        try await base.ping()
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
        await base.close(code, reason: reason)
        _ = recordOnce()
    }

    func abandon() {
        base.abandon()
        _ = recordOnce()
    }

    /// Records the session unless it is recorded already; the recording's error, if any.
    private func recordOnce() -> CourierError? {
        guard let messages = log.withLock({ log in defer { log = nil }; return log }) else { return nil }
        do throws(CourierError) {
            try record(RecordedWebSocket(messages: messages, close: base.closeFrame))
            return nil
        } catch {
            return error
        }
    }
}

/// A recorded session played back: each message the server sent arrives once the app has sent
/// as many messages as it had by then in the recording (an answer waits for its question), and
/// the session ends, with the recorded close (else 1000), once all have arrived and the app has
/// sent as many as it did. Sends are taken as they come, not compared.
final class ReplayedWebSocketConnection: WebSocketConnection {
    private struct State {
        var sent = 0
        var delivered = 0
        var ended = false
        var closeFrame: (code: WebSocketCloseCode, reason: String)?
        var reader: CheckedContinuation<Void, Never>?
    }

    /// The server's messages, each with how many the app had sent before it.
    private let arrivals: [(after: Int, message: WebSocketMessage)]
    private let totalSent: Int
    private let close: (code: WebSocketCloseCode, reason: String)
    private let url: URL
    private let state = Locked(State())

    init(_ session: RecordedWebSocket, url: URL) {
        var sent = 0
        var arrivals: [(after: Int, message: WebSocketMessage)] = []
        for recorded in session.messages {
            if recorded.sent { sent += 1 } else { arrivals.append((sent, recorded.message)) }
        }
        self.arrivals = arrivals
        totalSent = sent
        close = session.close ?? (.normalClosure, "")
        self.url = url
    }

    var closeFrame: (code: WebSocketCloseCode, reason: String)? { state.withLock { $0.closeFrame } }

    func receive() async throws(CourierError) -> WebSocketMessage? {
        while true {
            enum Step { case message(WebSocketMessage), end, wait }
            let step = state.withLock { state -> Step in
                if state.ended { return .end }
                if mustWait(state) { return .wait }
                if state.delivered < arrivals.count {
                    state.delivered += 1
                    return .message(arrivals[state.delivered - 1].message)
                }
                state.ended = true
                state.closeFrame = close
                return .end
            }
            switch step {
            case .message(let message): return message
            case .end: return nil
            case .wait:
                await withCheckedContinuation { reader in
                    let ready = state.withLock { state in
                        // A send or close that came meanwhile: look again at once.
                        guard mustWait(state) else { return true }
                        state.reader = reader
                        return false
                    }
                    if ready { reader.resume() }
                }
            }
        }
    }

    /// Whether the reader waits for the app: the next message (or the end) comes after sends
    /// the app has not made yet.
    private func mustWait(_ state: State) -> Bool {
        !state.ended && state.sent < (state.delivered < arrivals.count ? arrivals[state.delivered].after : totalSent)
    }

    func send(_ message: WebSocketMessage) async throws(CourierError) {
        let reader = try state.withLock { (state) throws(CourierError) in
            guard !state.ended else {
                throw CourierError(.invalidRequest, "The replayed WebSocket to \(url.hostAndPort) is closed; the \(message) was not sent.", url: url)
            }
            state.sent += 1
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    func ping() async throws(CourierError) {
        guard !state.withLock({ $0.ended }) else {
            throw CourierError(.invalidRequest, "The replayed WebSocket to \(url.hostAndPort) is closed; no ping was sent.", url: url)
        }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
        end(closeFrame: (code, reason))
    }

    func abandon() {
        end(closeFrame: nil)
    }

    private func end(closeFrame: (code: WebSocketCloseCode, reason: String)?) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.closeFrame = closeFrame
            defer { state.reader = nil }
            return state.reader
        }?.resume()
    }
}
