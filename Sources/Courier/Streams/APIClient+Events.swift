import Foundation

/// How ``APIClient/events(_:reconnection:)`` reconnects when a Server-Sent Events stream ends or
/// its connection drops: after the wait the stream asked for (`retry:`), else ``delay``, doubled
/// for each reconnect in a row that brought no event, never past ``maximumDelay`` (which also caps
/// what a stream may ask for), with jitter (each
/// wait is between half and all of that, so many clients dropped at once do not come back at once).
///
/// It is a view of a ``RetryPolicy`` (the stream's or policy's delay as its base delay, no time
/// budget), so reconnects follow the rules of every other retry in Courier.
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

    /// The retry policy this policy is: its reconnects in a row are retries after the first
    /// connection, with no time budget, any method, after the network failures the HTML standard
    /// reconnects after. `retry`, the milliseconds the stream asked for, replaces ``delay``.
    func retryPolicy(asked retry: Int? = nil) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: maximumAttempts.map { $0 == .max ? $0 : $0 + 1 } ?? .max,
            baseDelay: retry.map { .milliseconds(Swift.min($0, Int(Int32.max))) } ?? delay, maximumDelay: maximumDelay,
            budget: .seconds(Int64(Int32.max)), retryableStatusCodes: [],
            retryableFailures: [.cannotConnect, .connectionLost, .timedOut, .notConnectedToInternet], retriesAnyMethod: true)
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
        /// Reconnects in a row that brought no event, and their waits.
        var schedule: AttemptSchedule
        var connected = false
        var finished = false

        init(client: APIClient, request: Request<Data>, reconnection: ReconnectionPolicy) {
            self.client = client
            self.request = request
            self.reconnection = reconnection
            self.schedule = AttemptSchedule(reconnection.retryPolicy())
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
                            schedule.progressed()
                            return event
                        }
                        continue
                    }
                    // The server ended the stream: reconnect.
                    try await reconnect(after: nil)
                } catch {
                    // The HTML standard reconnects after the network's failures, not the server's answers.
                    guard schedule.policy.retries(error.kind) else {
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
            schedule.policy = reconnection.retryPolicy(asked: parser.retry)
            guard let delay = schedule.retry() else {
                finished = true
                if let error { throw error }
                return
            }
            do {
                try await schedule.wait(delay)  // the reconnection delay the stream or the policy asked for
            } catch {
                finished = true
                throw CourierError.cancelled(client.configuration.baseURL)
            }
        }
    }
}
