import Foundation

extension APIClient {
    /// The Server-Sent Events of `request` (`text/event-stream`), reconnecting as the HTML
    /// standard's `EventSource` does: when the connection drops or the server ends the stream,
    /// it connects again under `reconnection` (``RetryPolicy/reconnecting`` by default), sending
    /// `Last-Event-ID` with the last event ID it saw, with the client's credentials (a 401
    /// refreshes them as usual).
    ///
    /// The sequence ends when the server answers 204, and with an error when it answers a status
    /// the client does not accept, a status other than 200, or a content type other than
    /// `text/event-stream`, or when `reconnection` allows no more attempts. Cancelling the reading
    /// task closes the connection at once, also during a wait to reconnect.
    ///
    /// Its attempts are the first connection and the reconnects in a row that brought no event;
    /// the wait before one is what the stream asked for (`retry:`) in place of the policy's base
    /// delay, doubled for each reconnect in a row that brought no event, never past its maximum
    /// delay (which also caps what a stream may ask for). A reconnect follows a failure in the
    /// policy's ``RetryPolicy/retryableFailures`` or a clean end, whatever the request's method,
    /// as `EventSource` does.
    ///
    /// - Throws: ``CourierError/Kind/invalidRequest`` when `reconnection` has a negative delay or
    ///   budget, or fewer than one attempt; nothing is sent then.
    public func events(
        _ request: Request<Data>, reconnection: RetryPolicy = .reconnecting
    ) throws(CourierError) -> CourierSequence<ServerSentEvent> {
        try RequestValidation.checkRetryPolicy(reconnection, "reconnection")
        return CourierSequence { [self] in EventSourceReader(client: self, request: request, reconnection: reconnection) }
    }
}

/// The events of a Server-Sent Events stream, across reconnects (``APIClient/events(_:reconnection:)``):
/// connects and reconnects as needed.
struct EventSourceReader: CourierIterator {
    let client: APIClient
    let request: Request<Data>
    let reconnection: RetryPolicy
    var lines: LineReader?
    var parser = EventStreamParser()
    /// Reconnects in a row that brought no event, and their waits.
    var schedule: AttemptSchedule
    var connected = false
    var finished = false

    init(client: APIClient, request: Request<Data>, reconnection: RetryPolicy) {
        self.client = client
        self.request = request
        self.reconnection = reconnection
        self.schedule = AttemptSchedule(reconnection)
    }

    /// The next event; `nil` when the stream is over (a 204, or an end with no reconnect allowed).
    mutating func next() async throws(CourierError) -> ServerSentEvent? {
        while !finished {
            do throws(CourierError) {
                if lines == nil {
                    guard let opened = try await connect() else {
                        finished = true
                        return nil
                    }
                    lines = opened
                }
                if let line = try await lines?.nextBytes() {
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
    private mutating func connect() async throws(CourierError) -> LineReader? {
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
        return LineReader(pieces: stream.makeAsyncIterator(), endings: .any)
    }

    /// Drops the connection, then waits before the next one, or ends the sequence when the
    /// policy allows no more attempts (with `error`, or normally after a clean end).
    private mutating func reconnect(after error: CourierError?) async throws(CourierError) {
        lines = nil
        parser.endOfStream()
        schedule.policy = reconnection.asking(parser.retry)
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
