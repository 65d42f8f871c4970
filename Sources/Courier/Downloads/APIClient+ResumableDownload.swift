import Foundation

extension APIClient {
    /// Downloads the body of `request` into `destination` so that a dropped connection, a failure
    /// or a relaunch resumes where it stopped instead of starting again.
    ///
    /// The download is kept under `identifier` (a file name of your choice, such as `"video-42"`),
    /// not under its URL: give the same identifier with a new URL (a pre-signed URL that expired)
    /// and it resumes against that URL while the file on the server is the same.
    ///
    /// - The part already on disk is asked for with `Range: bytes=N-`, `If-Range` (a strong `ETag`,
    ///   else a `Last-Modified` at least a minute old; a weak `ETag` never) and
    ///   `Accept-Encoding: identity`.
    /// - Every answer is checked before a byte is appended: a `206` must start at N and have the
    ///   total recorded, else the part is discarded and the download starts over; a `200` starts
    ///   over; a `416` with the whole file on disk finishes it, else starts over.
    /// - A failure while the body arrives keeps the part and, under the request's or client's
    ///   ``RetryPolicy``, resumes after the policy's wait: its attempts and budget count from the last
    ///   attempt that added bytes, so a long download over a link that drops often still ends.
    ///   ``resumableDownloads()`` lists what is kept, and ``logout()`` erases the user's.
    /// - Download progress counts the bytes already on disk, against the whole file's total, and
    ///   never passes it.
    /// - The file moves to `destination` only once whole, and only when its SHA-256 is `sha256`
    ///   (64 hexadecimal digits) if you give one; a mismatch discards it and throws
    ///   ``CourierError/Kind/invalidResponse``.
    ///
    /// An identifier that is not a safe file name, a destination that is not a file URL, a
    /// `sha256` that is not hexadecimal, or an identifier whose download is already running in
    /// this client fails with ``CourierError/Kind/invalidRequest`` before anything is sent.
    public func download(
        _ request: Request<Data>, to destination: URL, resuming identifier: String, sha256: String? = nil
    ) async throws(CourierError) -> Response<URL> {
        let scope = userScope
        let claim = scope + "/" + identifier
        if let problem = DownloadStore.problem(identifier: identifier, destination: destination, sha256: sha256)
            ?? claimTransfer(claim, "download", identifier: identifier) {
            return try await recorded(request.settings) { _ throws(CourierError) -> Response<URL> in throw problem }
        }
        defer { activeDownloads.withLock { _ = $0.remove(claim) } }
        return try await fetch(request, to: destination, store: downloadStore, identifier: identifier, scope: scope, sha256: sha256)
    }

    /// Downloads the response body of `request` into `destination` (replacing the file there),
    /// streamed to disk so memory stays bounded whatever the size; download progress is reported
    /// as the bytes reach the file. Redirects, credentials, hooks and status checks work as for
    /// ``send(_:)``; the cache is not used. A failure while the body arrives resumes where it
    /// stopped under the request's or client's ``RetryPolicy``, as
    /// ``download(_:to:resuming:sha256:)`` does, within this call only.
    ///
    /// - Returns: a response whose value is `destination` and whose `data` is empty.
    /// - Throws: ``CourierError``; a non-2xx status carries its body as usual and leaves
    ///   `destination` untouched, as does a failure part way (the part is removed).
    ///
    /// With ``ClientConfiguration/resumesDownloads``, the download resumes after a failure or a
    /// relaunch instead (``download(_:to:resuming:sha256:)``, under an identifier made from the
    /// destination's path).
    public func download(_ request: Request<Data>, to destination: URL) async throws(CourierError) -> Response<URL> {
        if configuration.resumesDownloads {
            return try await download(request, to: destination, resuming: DownloadStore.identifier(for: destination))
        }
        if let problem = DownloadStore.problem(identifier: "download", destination: destination, sha256: nil) {
            return try await recorded(request.settings) { _ throws(CourierError) -> Response<URL> in throw problem }
        }
        // The part goes to a hidden folder of its own beside the destination (one file system: the
        // final move is a rename), removed once the download has ended, whole or not.
        let store = DownloadStore(directory: destination.deletingLastPathComponent())
        let scope = AtomicFile.temporaryFile(beside: destination).lastPathComponent
        defer { store.removeAll(scope: scope) }
        return try await fetch(request, to: destination, store: store, identifier: "download", scope: scope, sha256: nil)
    }

    /// The one way a body reaches a file: attempts that each continue the part `identifier` kept
    /// in `store` under `scope`, resumed under the retry policy, the part moved to `destination`
    /// once whole (and its SHA-256 checked, with `sha256`).
    private func fetch(
        _ request: Request<Data>, to destination: URL, store: DownloadStore, identifier: String, scope: String, sha256: String?
    ) async throws(CourierError) -> Response<URL> {
        let policy = request.retryPolicy ?? configuration.retryPolicy
        let progress = request.downloadProgress.map {
            ProgressRelay(handler: $0, queue: request.callbackQueue ?? configuration.callbackQueue)
        }
        var plain = request
        plain.downloadProgress = nil
        plain.retryPolicy = RetryPolicy.none  // the body's failures resume here, under `policy`
        // The policy bounds a stall, not a long download: an attempt that added bytes starts the
        // count (and the budget) again, so a large file over a link that drops often still ends.
        var schedule = AttemptSchedule(policy)
        var kept = store.bytesOnDisk(identifier, scope: scope)
        while true {
            do throws(CourierError) {
                let answer = try await downloadAttempt(
                    plain, identifier: identifier, destination: destination, store: store, scope: scope, progress: progress)
                if let sha256 {
                    try Self.verify(store.partial(identifier, scope: scope), sha256: sha256, url: answer.url) { store.discard(identifier, scope: scope) }
                }
                do {
                    try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try AtomicFile.move(store.partial(identifier, scope: scope), to: destination)
                } catch {
                    throw CourierError(
                        .transport, "The download could not be moved to \(destination.path): \(error.localizedDescription)", url: destination,
                        underlyingError: error)
                }
                store.discard(identifier, scope: scope)
                await progress?.flush()  // every report delivered before the download returns
                return answer
            } catch {
                // A failure on the way (no answer, a dropped connection) resumes under the retry policy.
                guard let delay = schedule.resume(
                    after: error, reached: &kept, now: store.bytesOnDisk(identifier, scope: scope), resumes: policy.allows(plain.method))
                else { throw error }
                try? await schedule.wait(delay)  // a cancellation ends the wait; the next attempt then fails as cancelled
            }
        }
    }

    /// The downloads kept for the current user, to resume (``download(_:to:resuming:sha256:)``
    /// with the same identifier) or discard.
    public func resumableDownloads() -> [ResumableDownload] {
        downloadStore.list(scope: userScope)
    }

    /// Removes what is kept of the current user's download `identifier`.
    public func discardResumableDownload(_ identifier: String) {
        guard DownloadStore.problem(identifier: identifier, destination: URL(fileURLWithPath: "/"), sha256: nil) == nil else { return }
        downloadStore.discard(identifier, scope: userScope)
    }

    /// Claims `claim` (scope and identifier) for one transfer at a time in this client: two
    /// writing one part (or sending one upload) would mix their bytes. The problem when it is
    /// taken; `what` names the transfer ("download", "upload").
    func claimTransfer(_ claim: String, _ what: String, identifier: String) -> CourierError? {
        guard activeDownloads.withLock({ $0.insert(claim).inserted }) else {
            return CourierError(
                .invalidRequest,
                "The \(what) \(identifier) is already running in this client; wait for it (or cancel it) before starting it again. Nothing was sent.")
        }
        return nil
    }

    var downloadStore: DownloadStore {
        DownloadStore(directory: configuration.resumableDownloadsDirectory ?? DownloadStore.standardDirectory)
    }

    /// What one attempt ended with.
    private enum Outcome {
        case complete(Response<URL>)
        case startOver
    }

    /// One request for what is missing, its answer checked and appended; starts over (once per
    /// attempt, at most twice) when the answer cannot continue what is on disk.
    private func downloadAttempt(
        _ request: Request<Data>, identifier: String, destination: URL, store: DownloadStore, scope: String, progress: ProgressRelay?
    ) async throws(CourierError) -> Response<URL> {
        for _ in 0..<3 {
            var saved = store.record(identifier, scope: scope)
            let onDisk = saved?.validator == nil ? 0 : store.bytesOnDisk(identifier, scope: scope)
            var request = request
            if onDisk > 0, let validator = saved?.validator {
                request.headers["Range"] = "bytes=\(onDisk)-"
                request.headers["If-Range"] = validator
                request.headers["Accept-Encoding"] = "identity"
            }
            let outcome = try await recorded(request.settings, streamsBody: true) { record throws(CourierError) -> Outcome in
                let response: TransportResponse
                do throws(CourierError) {
                    response = try await perform(request.settings, record: &record)
                } catch where error.statusCode == 416 && onDisk > 0 {
                    // Nothing left to send: done when the whole file is on disk, else start over.
                    if let total = saved?.total, onDisk == total, total > 0 {
                        _ = finish(&record, source: .network, statusCode: 416)
                        progress?.report(TransferProgress(completed: total, total: total))
                        return .complete(answer(destination, statusCode: 416, headers: [:], url: record.sent?.url ?? destination, record: record))
                    }
                    _ = finish(&record, failure: error)
                    store.discard(identifier, scope: scope)
                    return .startOver
                }
                let body = response.liveBody ?? LiveBody(whole: response.body, url: response.url)
                let start: Int64
                var total: Int64?
                if response.statusCode == 206 {
                    guard let range = ContentRange(response.headers["Content-Range"]), range.start == onDisk, onDisk > 0,
                          saved?.total == nil || range.total == saved?.total
                    else {
                        body.stop()
                        _ = finish(&record, source: .network, statusCode: response.statusCode)
                        store.discard(identifier, scope: scope)
                        return .startOver
                    }
                    start = onDisk
                    total = range.total ?? saved?.total
                } else {
                    // The whole file again: it changed, or the server ignored the range.
                    start = 0
                    total = ResponseFraming.isEncoded(response.headers) ? nil : (try? ResponseFraming.declaredLength(response.headers, url: response.url)) ?? nil
                    saved = DownloadStore.Record(
                        url: response.url.absoluteString, destination: destination.path, validator: Self.validator(of: response), total: total)
                }
                saved?.url = response.url.absoluteString
                saved?.destination = destination.path
                if let saved {
                    do {
                        try store.save(saved, identifier, scope: scope)
                    } catch {
                        body.stop()
                        throw CourierError(.transport, "The download \(identifier) could not be kept in \(store.directory.path): \(error.localizedDescription)", url: response.url, underlyingError: error)
                    }
                }
                try await Self.append(body, to: store.partial(identifier, scope: scope), from: start, total: total, progress: progress)
                recordBody(&record, bytes: body.received - Int64(response.body.count), outcome: RequestRecord.BodyOutcome(stoppedByReader: false, events: nil))
                _ = finish(&record, source: .network, statusCode: response.statusCode)
                return .complete(answer(destination, statusCode: response.statusCode, headers: response.headers, url: response.url, record: record))
            }
            if case .complete(let answer) = outcome { return answer }
        }
        throw CourierError(.invalidResponse, "The server's answers for the download \(identifier) could not continue the file on disk, three times over; what was kept is discarded. Try again.")
    }

    private func answer(_ destination: URL, statusCode: Int, headers: HTTPHeaders, url: URL, record: RequestRecord) -> Response<URL> {
        var answer = Response(
            value: destination, statusCode: statusCode, headers: headers, data: Data(), url: url, source: .network, requestID: record.id,
            duration: ContinuousClock.now - record.start)
        answer.metrics = record.metrics
        return answer
    }

    /// What `If-Range` may send for `response`'s file: a strong `ETag`, else a `Last-Modified` at
    /// least a minute before the response's `Date` (RFC 9110 §8.8.2.2), else nothing.
    static func validator(of response: TransportResponse) -> String? {
        if let etag = response.headers["ETag"], !etag.hasPrefix("W/"), etag.hasPrefix("\"") { return etag }
        guard let text = response.headers["Last-Modified"], let modified = HTTPDate.parse(text) else { return nil }
        let date = response.headers["Date"].flatMap { HTTPDate.parse($0) } ?? Date()
        return date.timeIntervalSince(modified) >= 60 ? text : nil
    }

    /// Appends `body` to `file` from `start` (truncating what lies beyond), reporting progress
    /// against `total`.
    private static func append(_ body: LiveBody, to file: URL, from start: Int64, total: Int64?, progress: ProgressRelay?) async throws(CourierError) {
        let handle: FileHandle
        do {
            if !FileManager.default.fileExists(atPath: file.path) {
                guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            }
            handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(start))
            try handle.seek(toOffset: UInt64(start))
        } catch {
            body.stop()
            throw CourierError(.transport, "The download could not be written to \(file.path): \(error.localizedDescription)", url: body.url, underlyingError: error)
        }
        defer { try? handle.close() }
        var written = start
        progress?.report(TransferProgress(completed: written, total: total))
        do throws(CourierError) {
            while let piece = try await body.next() {
                do {
                    try handle.write(contentsOf: piece)
                } catch {
                    throw CourierError(.transport, "The download could not be written to \(file.path): \(error.localizedDescription)", url: body.url, underlyingError: error)
                }
                written += Int64(piece.count)
                progress?.report(TransferProgress(completed: total.map { min(written, $0) } ?? written, total: total))
            }
        } catch {
            body.stop()
            throw error
        }
        progress?.report(TransferProgress(completed: written, total: total ?? written))
    }

    /// Checks the SHA-256 of `file` against `expected`; on a mismatch runs `discard` and throws.
    private static func verify(_ file: URL, sha256 expected: String, url: URL, discard: () -> Void) throws(CourierError) {
        let actual = CanonicalHasher.fileDigest(file)
        guard actual?.lowercased() == expected.lowercased() else {
            discard()
            throw CourierError(
                .invalidResponse,
                "The downloaded file's SHA-256 is \(actual ?? "unreadable"), not the expected \(expected.lowercased()); it was discarded. Download it again.",
                url: url)
        }
    }
}

/// A `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange {
    let start: Int64
    let end: Int64
    let total: Int64?

    init?(_ value: String?) {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start >= 0, end >= start else { return nil }
        self.start = start
        self.end = end
        if spec[1] == "*" {
            total = nil
        } else {
            guard let total = Int64(spec[1]), total > end else { return nil }
            self.total = total
        }
    }
}
