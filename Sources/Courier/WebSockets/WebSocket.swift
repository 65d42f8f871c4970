import Foundation

/// An open WebSocket (``APIClient/webSocket(_:options:onConnect:)``): read its messages as an
/// `AsyncSequence`, send with ``send(_:)``, end it with ``close(_:reason:)``.
///
/// ```swift
/// let socket = try await client.webSocket(Request(.get, "chat"))
/// try await socket.send(.text("hello"))
/// for try await message in socket {
///     if case .text(let text) = message { print(text) }
/// }
/// ```
///
/// The messages are read as they are asked for: a reader that is behind stops the reading from
/// the socket, so a fast server and a slow reader use bounded memory. One reader at a time. The
/// sequence ends when the connection closes cleanly (``closeCode`` then says how) and throws a
/// ``CourierError`` when it ends otherwise. Cancelling the reading task closes the connection
/// with ``WebSocketCloseCode/goingAway``, as does releasing the last reference to it.
///
/// With ``WebSocketOptions/reconnection``, a connection that drops, or that the server closes with
/// a code not in ``WebSocketOptions/finalCloseCodes``, is opened again under that policy, and the
/// `onConnect` hook runs on each new connection before its messages are read; ``events`` reports
/// each reconnect among the messages.
public final class WebSocket: AsyncSequence, Sendable {
    /// What the socket yields: its messages.
    public typealias Element = WebSocketMessage
    /// What ends the reading early.
    public typealias Failure = CourierError

    /// A message, or a reconnect (``events``).
    public struct Event: Sendable, Hashable {
        /// The message, for an event that brings one.
        public let message: WebSocketMessage?
        /// For a reconnect: its number (1 for the first), counted over the socket's life.
        public let reconnect: Int?
    }

    /// One connection and what came with it.
    struct Connection: Sendable {
        let connection: any WebSocketConnection
        let response: TransportResponse
        let requestID: RequestID
        let record: WebSocketRecord
    }

    /// What opens a connection again.
    struct Reopening: Sendable {
        let client: APIClient
        let request: Request<Data>
        let options: WebSocketOptions
        let policy: RetryPolicy
        let onConnect: (@Sendable (WebSocket) async throws -> Void)?
    }

    private struct State {
        var current: Connection
        /// The app closed the socket, or stopped reading it: no reconnect.
        var closedByApp = false
        var reconnects = 0
        var schedule: AttemptSchedule?
    }

    private let state: Locked<State>
    private let reopening: Reopening?

    init(_ connection: Connection, reopening: Reopening?) {
        state = Locked(State(current: connection, schedule: reopening.map { AttemptSchedule($0.policy) }))
        self.reopening = reopening
    }

    deinit {
        let current = state.withLock { $0.current }
        current.connection.abandon()
        // Nobody reads any more: the record ends now, with what is known of the close.
        current.record.end(closeCode: current.connection.closeFrame?.code, failure: nil)
    }

    private var current: Connection { state.withLock { $0.current } }

    /// The handshake's status: `101`.
    public var statusCode: Int { current.response.statusCode }
    /// The handshake's response headers (of the latest connection, after a reconnect).
    public var headers: HTTPHeaders { current.response.headers }
    /// The URL the handshake went to.
    public var url: URL { current.response.url }
    /// The id of the latest handshake request.
    public var requestID: RequestID { current.requestID }
    /// The subprotocol the server chose from ``WebSocketOptions/subprotocols``, if any.
    public var subprotocol: String? { headers["Sec-WebSocket-Protocol"] }
    /// How many times the socket has reconnected.
    public var reconnects: Int { state.withLock { $0.reconnects } }

    /// The close code the server sent, once the connection closed (`nil` before, and when the
    /// server's close frame had no code).
    public var closeCode: WebSocketCloseCode? { current.connection.closeFrame?.code }

    /// The reason the server gave with its close code, once the connection closed.
    public var closeReason: String? { current.connection.closeFrame?.reason }

    /// Sends `message` on the current connection; returns when it is handed to the connection.
    /// - Throws: ``CourierError`` when the connection has closed (nothing is sent; while a
    ///   reconnecting socket is between connections too) or fails.
    public func send(_ message: WebSocketMessage) async throws(CourierError) {
        let current = current
        try await current.connection.send(message)
        current.record.count(message, .sent)
    }

    /// Sends a ping on the current connection and returns the time until the server's pong came
    /// back. The automatic pings of ``WebSocketOptions/pingInterval`` already find a dead peer;
    /// this is for an app that wants to know now, or to show the round trip.
    /// - Throws: ``CourierError/Kind/timedOut`` when no pong arrives within the ping interval (30
    ///   seconds when automatic pings are off); ``CourierError`` when the connection has closed
    ///   (nothing is sent) or ends before the pong.
    @discardableResult
    public func ping() async throws(CourierError) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await current.connection.ping()
        return clock.now - start
    }

    /// Closes the connection with `code` and `reason` and returns once the server has answered,
    /// or the close timed out; a reconnecting socket stops reconnecting. Messages not yet read
    /// are dropped. Closing a closed socket does nothing.
    /// - Throws: ``CourierError/Kind/invalidRequest`` when `code` may not be sent (1005, 1006,
    ///   1015, and codes outside 1000-4999 are reserved) or `reason` is over 123 bytes of UTF-8;
    ///   nothing is sent then.
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws(CourierError) {
        guard code.isSendable else {
            throw CourierError(.invalidRequest, "The close code \(code) may not be sent (RFC 6455 section 7.4). Nothing was sent.", url: url)
        }
        guard reason.utf8.count <= 123 else {
            throw CourierError(
                .invalidRequest, "A close reason holds at most 123 bytes of UTF-8; this one has \(reason.utf8.count). Nothing was sent.", url: url)
        }
        let current = state.withLock { state in
            state.closedByApp = true
            return state.current
        }
        await current.connection.close(code, reason: reason)
        current.record.end(closeCode: current.connection.closeFrame?.code, failure: nil)
    }

    /// A reader of the messages (one reader at a time).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(socket: self)
    }

    /// Reads the messages in the order they arrived.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket

        /// The next message; `nil` once the connection has closed cleanly (and, for a reconnecting
        /// socket, will not be opened again).
        public mutating func next() async throws(CourierError) -> WebSocketMessage? {
            while let event = try await socket.nextEvent() {
                if let message = event.message { return message }
            }
            return nil
        }
    }

    /// The messages and, for a reconnecting socket, each reconnect, in order.
    public var events: CourierSequence<Event> {
        CourierSequence { [self] in EventReader(socket: self) }
    }

    private struct EventReader: CourierIterator {
        let socket: WebSocket
        mutating func next() async throws(CourierError) -> Event? { try await socket.nextEvent() }
    }

    // MARK: - Reading, and reconnecting

    /// The next message or reconnect; `nil` at the end.
    func nextEvent() async throws(CourierError) -> Event? {
        while true {
            let current = current
            let connection = current.connection
            let outcome: Result<WebSocketMessage?, CourierError>
            do {
                let message = try await withTaskCancellationHandler {
                    try await connection.receive()
                } onCancel: {
                    stopReading()
                }
                outcome = .success(message)
            } catch {
                outcome = .failure(CourierError.wrap(error, url: current.response.url))
            }
            switch outcome {
            case .success(let message?):
                current.record.count(message, .received)
                if reopening != nil { state.withLock { $0.schedule?.progressed() } }
                return Event(message: message, reconnect: nil)
            case .success(nil):
                let closeCode = connection.closeFrame?.code
                current.record.end(closeCode: closeCode, failure: nil)
                guard let reopening, !state.withLock({ $0.closedByApp }), closeCode.map({ !reopening.options.finalCloseCodes.contains($0) }) ?? true
                else { return nil }
                guard let event = try await reconnect(reopening, after: nil) else { return nil }
                return event
            case .failure(let failure):
                current.record.end(closeCode: connection.closeFrame?.code, failure: failure)
                guard let reopening, !state.withLock({ $0.closedByApp }), !Task.isCancelled, reopening.policy.retries(failure.kind) else {
                    throw failure
                }
                guard let event = try await reconnect(reopening, after: failure) else { return nil }
                return event
            }
        }
    }

    /// Opens the socket again under the policy: the reconnect's event, `nil` when the app closed
    /// the socket meanwhile, or the last failure when the policy allows no more attempts.
    private func reconnect(_ reopening: Reopening, after failure: CourierError?) async throws(CourierError) -> Event? {
        var failure = failure
        while true {
            guard let (delay, policy) = state.withLock({ state -> (Duration, RetryPolicy)? in
                guard let delay = state.schedule?.retry(), let policy = state.schedule?.policy else { return nil }
                return (delay, policy)
            }) else {
                if let failure { throw failure }
                return nil
            }
            do {
                try await AttemptSchedule.wait(delay, with: policy.sleeper)
            } catch {
                throw CourierError.cancelled(url)
            }
            if state.withLock({ $0.closedByApp }) { return nil }
            let opened: Connection
            do throws(CourierError) {
                opened = try await reopening.client.openWebSocket(reopening.request, options: reopening.options)
            } catch {
                guard policy.retries(error.kind) else { throw error }
                failure = error
                continue
            }
            let (installed, number) = state.withLock { state -> (Bool, Int) in
                guard !state.closedByApp else { return (false, state.reconnects) }
                state.current = opened
                state.reconnects += 1
                return (true, state.reconnects)
            }
            guard installed else {
                opened.connection.abandon()
                return nil
            }
            if let onConnect = reopening.onConnect {
                do {
                    try await onConnect(self)
                } catch {
                    let failure = CourierError(
                        .rejected, "The onConnect hook of the WebSocket to \(url.hostAndPort) failed after reconnect \(number): \(error)", url: url,
                        underlyingError: error)
                    try? await close(.goingAway)
                    throw failure
                }
            }
            return Event(message: nil, reconnect: number)
        }
    }

    /// The reading task was cancelled: no more reconnects, and the connection closes.
    private func stopReading() {
        state.withLock { state in
            state.closedByApp = true
            return state.current.connection
        }.abandon()
    }
}
