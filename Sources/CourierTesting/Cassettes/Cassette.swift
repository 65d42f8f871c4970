import Courier
import Foundation

/// Recorded HTTP exchanges in a HAR 1.2 file, which ``RecordingTransport`` writes and replays
/// and ``ReplayTransport`` replays.
///
/// ```swift
/// let cassette = try Cassette(file: fixtures.appendingPathComponent("images.har"))  // mode .once
/// let transport = RecordingTransport(wrapping: URLSessionTransport())
/// let client = APIClient(baseURL: baseURL, transport: transport)
/// try await cassette.use {
///     let images = try await client.send(Request<[Image]>(.get, "images"))
/// }
/// ```
///
/// The first run sends the requests and writes the file (each recording a moment after its
/// exchange, and all of them by the time ``use(_:)`` returns or ``flush()`` is called); later runs
/// answer from it, with the server stopped. Secrets are redacted before anything is written
/// (``CassetteRedaction``). The file is HAR, which browsers, mitmproxy, Charles and Proxyman read
/// and write: a HAR exported from one of them replays too.
///
/// A cassette is chosen per task with ``use(_:)`` (a task-local value), so parallel tests sharing
/// one transport each use their own. A transport can also be given one cassette for good.
public final class Cassette: Sendable {
    /// The HAR file.
    public let file: URL
    /// When the network is used and what is written.
    public let mode: RecordMode
    /// How requests find their recorded answers.
    public let matching: CassetteMatching

    private struct State {
        /// The entries requests are matched against. A cassette that records everything matches
        /// nothing, so it keeps only the ones not yet handed to the writer (a long recording's
        /// bodies are not held for the cassette's life): its first entry is then number
        /// `handedToWriter`.
        var entries: [CassetteEntry]
        var used: [Bool]
        var redactor: Redactor
        /// How many entries have been handed to the writer (so are in the file, or failed to go there).
        var handedToWriter = 0
        /// Whether a write is scheduled (``CassetteWriting``) for the entries recorded since.
        var writeScheduled = false
        /// Why the file could not be written; every later recording and ``flush()`` throws it.
        var writeError: CourierError?
    }

    private let state: Locked<State>
    /// Writes the file; taken before `state` when both are held, and held while encoding and
    /// writing, so that recordings and answers go on meanwhile.
    private let writer: Locked<HARFileWriter>
    /// Whether every request goes to the network and is recorded (a new cassette in mode `once`;
    /// mode `all`).
    private let recordsEverything: Bool

    /// Opens the cassette at `file`: reads it unless `mode` is ``RecordMode/all``.
    ///
    /// Throws a ``CourierError/Kind/cassetteInvalid`` error when the file is there but is not a
    /// HAR file Courier can replay, or when it is missing in mode ``RecordMode/none``.
    public init(
        file: URL, mode: RecordMode = .once, matching: CassetteMatching = .methodAndURL, redaction: CassetteRedaction = .standard
    ) throws(CourierError) {
        guard file.isFileURL else {
            throw CourierError(.cassetteInvalid, "A cassette is a file, and \(file.absoluteString) is not a file URL.")
        }
        guard !redaction.placeholder.isEmpty, PercentEncoding.encodeComponent(redaction.placeholder) == redaction.placeholder else {
            throw CourierError(
                .cassetteInvalid,
                "The redaction placeholder \"\(redaction.placeholder)\" must be letters, digits, -, ., _ or ~ (it goes into headers and URLs as it is).")
        }
        self.file = file
        self.mode = mode
        self.matching = matching
        // What this process recorded into the file and has not written yet is written first.
        CassetteWriting.flushAll()
        let exists = FileManager.default.fileExists(atPath: file.path)
        var entries: [CassetteEntry] = []
        if exists, mode != .all {
            entries = try Self.read(file)
        } else if !exists, mode == .none {
            throw CourierError(
                .cassetteInvalid,
                "There is no cassette at \(file.path), and its mode is none (replay only). Record it first with mode once or all.")
        }
        recordsEverything = mode == .all || (mode == .once && !exists)
        var redactor = Redactor(rules: redaction)
        if !redaction.headers.isEmpty || !redaction.queryParameters.isEmpty || !redaction.bodyFields.isEmpty {
            entries = entries.map { entry in
                var entry = entry
                entry.request = redactor.redact(entry.request)
                return entry
            }
        }
        state = Locked(State(entries: entries, used: Array(repeating: false, count: entries.count), redactor: redactor))
        writer = Locked(HARFileWriter(file: file))
    }

    deinit { CassetteWriting.forget(self) }

    /// The cassette of the current task, set by ``use(_:)``; transports made without a cassette use it.
    @TaskLocal public static var current: Cassette?

    /// Runs `body` with this cassette as the current task's (``current``): the requests it and its
    /// child tasks send through a ``RecordingTransport`` or ``ReplayTransport`` made without a
    /// cassette of their own are recorded here or answered from here.
    ///
    /// When `body` returns, the file holds everything recorded so far (``flush()``); a file that
    /// could not be written is a ``CourierError/Kind/cassetteInvalid`` error thrown here.
    public func use<T>(_ body: () async throws -> T) async throws -> T {
        let result = try await Cassette.$current.withValue(self) { try await body() }
        try flush()
        return result
    }

    /// The number of entries: the ones read from the file and the ones recorded since.
    public var entryCount: Int { state.withLock { [recordsEverything] in (recordsEverything ? $0.handedToWriter : 0) + $0.entries.count } }

    /// How many entries are held in memory (for tests: a cassette that records everything lets
    /// them go once they are handed to the writer).
    package var heldEntryCount: Int { state.withLock { $0.entries.count } }

    /// The number of entries no request has been answered with yet (a test can require 0, so that
    /// a request the app stopped making does not go unnoticed).
    public var unusedEntryCount: Int { state.withLock { $0.used.count { !$0 } } }

    // MARK: Answers

    /// What to do with a request.
    enum Plan: Sendable {
        case replay(CassetteEntry, redactedURL: URL)
        /// Send it and record it; the request as redacted so far comes along.
        case record(TransportRequest)
        case miss(CourierError)
    }

    /// Finds the answer to `request`. `canRecord` is `false` for a ``ReplayTransport``.
    func plan(for request: TransportRequest, canRecord: Bool) -> Plan {
        state.withLock { state in
            let redacted = state.redactor.redact(request)
            if recordsEverything {
                // A cassette being recorded answers nothing, not even what it recorded a moment ago.
                return canRecord ? .record(redacted) : .miss(recordingMiss(redacted))
            }
            let path = CassetteMatching.lookupPath(redacted.url)
            let candidates = state.entries.indices.filter { index in
                let entry = state.entries[index]
                // Method and path first: cheap, and most entries differ there.
                return entry.request.method == redacted.method && entry.lookupPath == path
                    && matching.differences(between: redacted, and: entry.request).isEmpty
            }
            if let index = candidates.first(where: { !state.used[$0] }) {
                state.used[index] = true
                return .replay(state.entries[index], redactedURL: redacted.url)
            }
            if let last = candidates.last, matching.repeatsLastAnswer {
                return .replay(state.entries[last], redactedURL: redacted.url)
            }
            if canRecord, mode == .newEpisodes { return .record(redacted) }
            return .miss(missError(redacted, answered: candidates.count, entries: state.entries))
        }
    }

    /// Records an exchange; the file gets it moments later (``CassetteWriting``). `redacted` is the
    /// request as ``plan(for:canRecord:)`` redacted it; `stream` its streamed body, read now (its
    /// fields redacted like a body in memory); `webSocket` the session a `101` opened, its
    /// messages scrubbed of the secrets learnt as bodies are. Throws the error of an earlier write
    /// that failed.
    func record(
        _ redacted: TransportRequest, stream: StreamedBody?, response: TransportResponse, started: Date, duration: Duration,
        webSocket: RecordedWebSocket? = nil
    ) throws(CourierError) {
        var request = redacted
        if request.body == nil, let stream { request.body = try? stream.collect() }
        var body = response.body
        let milliseconds = duration.seconds * 1000
        let waited = (milliseconds * 1000).rounded() / 1000
        let schedule = try state.withLock { (state) throws(CourierError) in
            if let error = state.writeError { throw error }
            if stream != nil { request = state.redactor.replaceNamed(in: request) }
            var headers = response.headers
            state.redactor.replaceNamed(in: &headers, body: &body)
            // Scrubbed again: the response may have named secrets the request holds too.
            var sent = state.redactor.scrub(request)
            sent.bodyStream = nil
            if sent.body?.isEmpty == true { sent.body = nil }
            let entry = CassetteEntry(
                request: sent, status: response.statusCode, statusText: HTTPStatus.reason(response.statusCode),
                headers: state.redactor.scrub(headers), body: state.redactor.scrub(body),
                startedDateTime: Self.timestamp(started), timings: HARTimings(wait: waited), time: waited,
                webSocket: webSocket.map { state.redactor.scrub($0) })
            state.entries.append(entry)
            state.used.append(true)
            if state.writeScheduled { return false }
            state.writeScheduled = true
            return true
        }
        if schedule { CassetteWriting.schedule(self) }
    }

    // MARK: The file

    /// Writes what has been recorded and is not in ``file`` yet, now.
    ///
    /// Recordings reach the file on their own moments later, and at the latest when ``use(_:)``
    /// returns, when another cassette is opened in this process and when the process exits
    /// normally; call this to read the file before then. Throws a
    /// ``CourierError/Kind/cassetteInvalid`` error when the file cannot be written (then and
    /// ever after: the recordings after it fail too).
    public func flush() throws(CourierError) {
        try writer.withLock { (writer) throws(CourierError) in
            let (batch, start) = try state.withLock { [recordsEverything] (state) throws(CourierError) -> ([CassetteEntry], Int) in
                if let error = state.writeError { throw error }
                let start = state.handedToWriter
                if recordsEverything {
                    // Nothing is matched against them: they go to the writer and are let go here.
                    let batch = state.entries
                    state.entries = []
                    state.used = []
                    state.handedToWriter += batch.count
                    return (batch, start)
                }
                var batch: [CassetteEntry] = []
                batch.reserveCapacity(state.entries.count - start)
                batch.append(contentsOf: state.entries[start...])  // a copy: the next recording appends to `entries` in place
                state.handedToWriter = state.entries.count
                return (batch, start)
            }
            guard !batch.isEmpty else { return }
            do throws(CourierError) {
                try writer.write(batch, after: start)
            } catch {
                state.withLock { $0.writeError = error }
                throw error
            }
        }
    }

    /// The write ``CassetteWriting`` scheduled: what has been recorded since it was scheduled.
    func scheduledWrite() {
        state.withLock { $0.writeScheduled = false }
        try? flush()  // a failure is kept in `writeError`
    }

    private static func read(_ file: URL) throws(CourierError) -> [CassetteEntry] {
        let document: HARDocument
        do {
            document = try JSONDecoder().decode(HARDocument.self, from: Data(contentsOf: file))
        } catch let error as DecodingError {
            throw CourierError(.cassetteInvalid, "The cassette \(file.path) is not a HAR file Courier can read: \(DecodingErrorText.describe(error))", underlyingError: error)
        } catch {
            throw CourierError(.cassetteInvalid, "The cassette \(file.path) cannot be read: \(error)", underlyingError: error)
        }
        var entries: [CassetteEntry] = []
        for (index, entry) in document.log.entries.enumerated() { entries.append(try CassetteEntry(entry, index: index, file: file)) }
        return entries
    }

    /// `date` as HAR writes it: ISO 8601 in UTC with milliseconds (`2026-11-24T10:15:30.125Z`),
    /// through the package's fixed-pattern date writer (a Foundation date formatter costs more to
    /// make than a recording's every other step).
    static func timestamp(_ date: Date) -> String {
        guard let format = Self.timestampFormat, let text = format.string(from: date, timeZone: Self.utc) else {
            return "1970-01-01T00:00:00.000Z"
        }
        return text
    }

    private static let timestampFormat = FixedDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
    private static let utc = TimeZone(secondsFromGMT: 0) ?? .current
}
