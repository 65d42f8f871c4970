import Foundation

/// A response whose body is read as it arrives: the status and headers are here at once, the body
/// comes as pieces of bytes (``APIClient/stream(_:)``).
///
/// ```swift
/// let stream = try await client.stream(Request(.get, "logs/tail"))
/// for try await line in stream.lines { print(line) }
/// ```
///
/// Reading is paced by the reader: while it is behind, at most about a megabyte waits in memory and
/// the transport stops reading from the network. Cancelling the reading task, or letting every
/// copy of the stream and its iterators go before the end, closes the connection. A connection
/// lost after the head ends the sequence with a ``CourierError`` of kind
/// ``CourierError/Kind/connectionLost`` (or ``CourierError/Kind/timedOut``), after every piece
/// that arrived.
public struct ResponseStream: AsyncSequence, Sendable {
    /// What the sequence gives.
    public typealias Element = Data
    /// What ends it early.
    public typealias Failure = CourierError

    /// The HTTP status code (2xx, or another status the client accepts).
    public let statusCode: Int
    /// The response headers.
    public let headers: HTTPHeaders
    /// The URL that answered (after redirects).
    public let url: URL
    /// The request's identifier.
    public let requestID: RequestID
    /// The decoder of the client (or of the request), which ``values(of:)`` uses.
    let decoder: any DataDecoder
    let handle: Handle

    /// The body, the record that ends when the reader is done with it, and the duty to stop it
    /// when nobody reads it any more.
    final class Handle: Sendable {
        let body: LiveBody
        let record: StreamRecord?

        init(_ body: LiveBody, record: StreamRecord?) {
            self.body = body
            self.record = record
        }

        /// The next piece; the record ends with the body's end or failure.
        func next() async throws(CourierError) -> Data? {
            do {
                let piece = try await body.next()
                if piece == nil { record?.end(bytes: body.received, failure: nil, stopped: false) }
                return piece
            } catch {
                record?.end(bytes: body.received, failure: error, stopped: error.kind == .cancelled)
                throw error
            }
        }

        /// The reader is done before the end.
        func stop() {
            body.stop()
            record?.end(bytes: body.received, failure: nil, stopped: true)
        }

        deinit {
            stop()
        }
    }

    init(
        statusCode: Int, headers: HTTPHeaders, url: URL, requestID: RequestID, decoder: any DataDecoder, body: LiveBody,
        record: StreamRecord? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.requestID = requestID
        self.decoder = decoder
        handle = Handle(body, record: record)
    }

    /// Reads the body's pieces in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let handle: Handle

        /// The next piece; `nil` at the end of the body.
        public mutating func next() async throws(CourierError) -> Data? {
            try await handle.next()
        }
    }

    /// A reader from the start (a stream's body can be read once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: handle)
    }

    /// Stops reading and closes the connection; a reader waiting for the next piece gets a
    /// ``CourierError/Kind/cancelled`` error.
    public func cancel() {
        handle.stop()
    }

    /// The body as lines of text (UTF-8), without their line ends (LF or CRLF); the last line is
    /// given even when no line end follows it.
    public var lines: CourierSequence<String> {
        let stream = self
        return CourierSequence { LineReader(pieces: stream.makeAsyncIterator(), endings: .lineFeed) }
    }

    /// The body read as a Server-Sent Events stream, without reconnecting when it ends (for that,
    /// ``APIClient/events(_:reconnection:)``).
    public var events: CourierSequence<ServerSentEvent> {
        let stream = self
        return CourierSequence {
            stream.handle.record?.readsEvents()
            return EventReader(lines: LineReader(pieces: stream.makeAsyncIterator(), endings: .any))
        }
    }

    /// The body as newline-delimited JSON (NDJSON, JSON Lines): each line that is not blank,
    /// decoded as `type` with ``decoder``, the client's (``ModelDecoder`` and its key rules, by
    /// default). A line that does not decode ends the sequence with a
    /// ``CourierError/Kind/decodingFailed`` error naming the line.
    public func values<Value: Decodable>(of type: Value.Type) -> CourierSequence<Value> {
        CourierSequence(ValueReader<Value>.Source(stream: self))
    }
}

/// A stream's body as lines (``ResponseStream/lines``).
struct LineReader: CourierIterator {
    var pieces: ResponseStream.AsyncIterator
    var splitter: LineSplitter
    var ended = false

    init(pieces: ResponseStream.AsyncIterator, endings: LineSplitter.Endings) {
        self.pieces = pieces
        splitter = LineSplitter(endings: endings)
    }

    mutating func next() async throws(CourierError) -> String? {
        try await nextBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next line as its bytes (``LineSplitter/nextLineBytes()``), with no `String` made.
    mutating func nextBytes() async throws(CourierError) -> ArraySlice<UInt8>? {
        while true {
            if let line = splitter.nextLineBytes() { return line }
            if ended { return splitter.restBytes() }
            if let piece = try await pieces.next() {
                splitter.append(piece)
            } else {
                ended = true
            }
        }
    }
}

/// A stream's body as Server-Sent Events (``ResponseStream/events``).
struct EventReader: CourierIterator {
    var lines: LineReader
    var parser = EventStreamParser()

    mutating func next() async throws(CourierError) -> ServerSentEvent? {
        while true {
            // The lines already read are parsed where they lie, without an async call or a slice
            // each: only reading more waits.
            while let taken = Self.nextBuffered(&lines.splitter, &parser) {
                if let event = taken { return counted(event) }
            }
            guard let line = try await lines.nextBytes() else { return nil }
            if let event = parser.take(line) { return counted(event) }
        }
    }

    /// What the next line in `splitter` dispatches (`nil` inside when it dispatches nothing);
    /// `nil` when no line is whole.
    private static func nextBuffered(_ splitter: inout LineSplitter, _ parser: inout EventStreamParser) -> ServerSentEvent?? {
        splitter.nextLine { parser.take(bytes: $0) }
    }

    private func counted(_ event: ServerSentEvent) -> ServerSentEvent {
        lines.pieces.handle.record?.countEvent()
        return event
    }
}

/// A stream's lines decoded as JSON values (``ResponseStream/values(of:)``).
struct ValueReader<Value: Decodable>: CourierIterator {
    struct Source: CourierSource {
        let stream: ResponseStream

        func start() -> any CourierIterator<Value> {
            ValueReader(lines: LineReader(pieces: stream.makeAsyncIterator(), endings: .lineFeed), decoder: stream.decoder, url: stream.url)
        }
    }

    var lines: LineReader
    let decoder: any DataDecoder
    let url: URL
    var number = 0

    mutating func next() async throws(CourierError) -> Value? {
        while let line = try await lines.next() {
            number += 1
            guard line.contains(where: { !$0.isWhitespace }) else { continue }
            do {
                return try decoder.decode(Value.self, from: Data(line.utf8))
            } catch {
                var failure = CourierError(
                    .decodingFailed,
                    "Line \(number) of the stream from \(url.path) could not be read as \(Value.self): \(DecodingErrorText.describe(error))",
                    url: url, body: Data(line.utf8), underlyingError: error)
                failure.keyPath = DecodingErrorText.keyPath(of: error)
                throw failure
            }
        }
        return nil
    }
}
