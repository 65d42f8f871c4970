import Foundation

/// How ``APIClient/events(_:reconnection:)`` reconnects when a Server-Sent Events stream ends or
/// its connection drops: after the wait the stream asked for (`retry:`), else ``delay``, doubled
/// for each reconnect in a row that brought no event, never past ``maximumDelay`` (which also caps
/// what a stream may ask for), with jitter (each
/// wait is between half and all of that, so many clients dropped at once do not come back at once).
public struct ReconnectionPolicy: Sendable, Hashable {
    /// The wait before a reconnect when the stream named none. 3 seconds by default, as browsers.
    public var delay: Duration
    /// The longest wait, backoff included. 60 seconds by default.
    public var maximumDelay: Duration
    /// Reconnects in a row that may bring no event before the stream ends with the last error;
    /// `nil` for no limit. 10 by default; 0 never reconnects.
    public var maximumAttempts: Int?

    /// Creates a policy.
    public init(delay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60), maximumAttempts: Int? = 10) {
        self.delay = delay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// Never reconnects: the sequence ends with the stream.
    public static let never = ReconnectionPolicy(maximumAttempts: 0)

    /// The wait before reconnect number `attempt` (1 for the first in a row), with `retry`
    /// milliseconds asked by the stream, before jitter.
    func wait(beforeAttempt attempt: Int, retry: Int?) -> Duration {
        var wait = retry.map { Duration.milliseconds(min($0, Int(Int32.max))) } ?? delay
        // Doubled only while under the maximum, so no delay an app or a server gives overflows.
        for _ in 1..<max(attempt, 1) where wait < maximumDelay { wait *= 2 }
        return min(wait, maximumDelay)
    }

    /// An error for a policy that cannot work, or `nil`.
    func problem() -> String? {
        if delay < .zero { return "its delay is negative (\(delay))" }
        if maximumDelay < .zero { return "its maximumDelay is negative (\(maximumDelay))" }
        if let maximumAttempts, maximumAttempts < 0 { return "its maximumAttempts is negative (\(maximumAttempts))" }
        return nil
    }
}

extension APIClient {
    /// The Server-Sent Events of `request` (`text/event-stream`), reconnecting as the HTML
    /// standard's `EventSource` does: when the connection drops or the server ends the stream,
    /// it connects again under `reconnection`, sending `Last-Event-ID` with the last event ID it
    /// saw, with the client's credentials (a 401 refreshes them as usual).
    ///
    /// The sequence ends when the server answers 204, and with an error when it answers a status
    /// the client does not accept, a status other than 200, or a content type other than
    /// `text/event-stream`, or when `reconnection` allows no more attempts. Cancelling the reading
    /// task closes the connection at once, also during a wait to reconnect.
    ///
    /// - Throws: ``CourierError/Kind/invalidRequest`` when `reconnection` has a negative delay or
    ///   limit; nothing is sent then.
    public func events(
        _ request: Request<Data>, reconnection: ReconnectionPolicy = ReconnectionPolicy()
    ) throws(CourierError) -> ServerSentEvents {
        if let problem = reconnection.problem() {
            throw CourierError(.invalidRequest, "The reconnection policy for \(request.method) \(request.path) cannot be used: \(problem).")
        }
        return ServerSentEvents(client: self, request: request, reconnection: reconnection)
    }
}

/// The events of a Server-Sent Events stream, across reconnects (``APIClient/events(_:reconnection:)``).
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// What the sequence gives.
    public typealias Element = ServerSentEvent
    /// What ends it early.
    public typealias Failure = CourierError

    let client: APIClient
    let request: Request<Data>
    let reconnection: ReconnectionPolicy

    /// A reader from the start (a stream's body can be read once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: client, request: request, reconnection: reconnection)
    }

    /// Reads events, connecting and reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: APIClient
        let request: Request<Data>
        let reconnection: ReconnectionPolicy
        var lines: ResponseStream.Lines.AsyncIterator?
        var parser = EventStreamParser()
        /// Reconnects in a row that brought no event.
        var attempts = 0
        var connected = false
        var finished = false

        init(client: APIClient, request: Request<Data>, reconnection: ReconnectionPolicy) {
            self.client = client
            self.request = request
            self.reconnection = reconnection
        }

        /// The next event; `nil` when the stream is over (a 204, or an end with no reconnect allowed).
        public mutating func next() async throws(CourierError) -> ServerSentEvent? {
            while !finished {
                do throws(CourierError) {
                    if lines == nil {
                        guard let opened = try await connect() else {
                            finished = true
                            return nil
                        }
                        lines = opened
                    }
                    if let line = try await lines?.next() {
                        if let event = parser.take(line) {
                            lines?.pieces.handle.record?.countEvent()
                            attempts = 0
                            return event
                        }
                        continue
                    }
                    // The server ended the stream: reconnect.
                    try await reconnect(after: nil)
                } catch {
                    guard Self.reconnects(after: error) else {
                        finished = true
                        throw error
                    }
                    try await reconnect(after: error)
                }
            }
            return nil
        }

        /// Opens the stream; `nil` for a 204 (the server says: no more).
        private mutating func connect() async throws(CourierError) -> ResponseStream.Lines.AsyncIterator? {
            var wire = request
            if !wire.headers.contains("Accept") { wire.headers["Accept"] = "text/event-stream" }
            wire.headers["Cache-Control"] = "no-store"
            wire.headers["Last-Event-ID"] = parser.lastEventID.isEmpty ? nil : parser.lastEventID
            let stream = try await client.stream(wire)
            if stream.statusCode == 204 {
                stream.cancel()
                return nil
            }
            let contentType = stream.headers["Content-Type"] ?? ""
            let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard stream.statusCode == 200, mediaType == "text/event-stream" else {
                stream.cancel()
                finished = true
                throw CourierError(
                    .invalidResponse,
                    "\(stream.url.path) answered \(stream.statusCode) with Content-Type \"\(contentType)\": an event stream needs 200 and text/event-stream.",
                    url: stream.url, statusCode: stream.statusCode, headers: stream.headers)
            }
            connected = true
            stream.handle.record?.readsEvents()
            return ResponseStream.Lines(stream: stream, endings: .any).makeAsyncIterator()
        }

        /// Drops the connection, then waits before the next one, or ends the sequence when the
        /// policy allows no more attempts (with `error`, or normally after a clean end).
        private mutating func reconnect(after error: CourierError?) async throws(CourierError) {
            lines = nil
            parser.endOfStream()
            attempts += 1
            if let maximum = reconnection.maximumAttempts, attempts > maximum {
                finished = true
                if let error { throw error }
                return
            }
            let wait = reconnection.wait(beforeAttempt: attempts, retry: parser.retry)
            let jittered = wait * Double.random(in: 0.5...1)
            do {
                try await Task.sleep(for: jittered)  // the reconnection delay the stream or the policy asked for
            } catch {
                finished = true
                throw CourierError.cancelled(client.configuration.baseURL)
            }
        }

        /// Whether a failure is one the HTML standard reconnects after: the network, not the server's answer.
        static func reconnects(after error: CourierError) -> Bool {
            [.connectionLost, .timedOut, .cannotConnect, .notConnectedToInternet].contains(error.kind)
        }
    }
}
