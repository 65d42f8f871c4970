import Foundation

extension APIClient {
    /// Sends `request` and returns as soon as the response head has arrived, with the body to read
    /// as it arrives (``ResponseStream``): bytes, lines, newline-delimited JSON or Server-Sent
    /// Events.
    ///
    /// Everything of ``send(_:)`` applies up to the head: credentials, a refresh after a 401,
    /// retries before an answer, hooks, redirects, status checks (a status the client does not
    /// accept throws as usual, with its body read up to the size limit), metrics and tracing. The
    /// response cache and the sharing of identical requests do not: every call is its own exchange.
    /// ``ClientConfiguration/timeout`` (or the request's) is the longest the stream may go quiet.
    public func stream(_ request: Request<Data>) async throws(CourierError) -> ResponseStream {
        try await streaming(request) { response, record throws(CourierError) in
            notifyAnswer(from: response.url)
            // The record stays open until the reader is done with the body.
            return ResponseStream(
                statusCode: response.statusCode, headers: response.headers, url: response.url, requestID: record.id,
                decoder: request.decoder ?? configuration.decoder,
                body: response.liveBody ?? LiveBody(whole: response.body, url: response.url),
                record: StreamRecord(client: self, record: record, response: response))
        }
    }

    /// Downloads the response body of `request` into `destination` (replacing the file there),
    /// streamed to disk so memory stays bounded whatever the size; download progress is reported
    /// as the bytes arrive. Redirects, credentials, hooks and status checks work as for
    /// ``send(_:)``; the cache is not used.
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
        // Progress counts what reaches the file, as the resumable path does, and every report is
        // delivered before this returns: the transport's last report can come after the body ends.
        let progress = request.downloadProgress.map {
            ProgressRelay(handler: $0, queue: request.callbackQueue ?? configuration.callbackQueue)
        }
        var plain = request
        plain.downloadProgress = nil
        let answer = try await streaming(plain) { response, record throws(CourierError) in
            let body = response.liveBody ?? LiveBody(whole: response.body, url: response.url)
            let total = ResponseFraming.isEncoded(response.headers) ? nil : (try? ResponseFraming.declaredLength(response.headers, url: response.url)) ?? nil
            var failure: CourierError?
            do throws(CourierError) {
                try await Self.write(body, to: destination, total: total, progress: progress)
            } catch {
                failure = error
            }
            // What the attempt did not count: the body that went to the file as it arrived.
            let arrived = body.received - Int64(response.body.count)
            recordBody(&record, bytes: arrived, outcome: RequestRecord.BodyOutcome(stoppedByReader: false, events: nil))
            if let failure { throw complete(failure, record: record) }
            let metrics = finish(&record, source: .network, statusCode: response.statusCode)
            var answer = Response(
                value: destination, statusCode: response.statusCode, headers: response.headers, data: Data(), url: response.url,
                source: .network, requestID: record.id, duration: ContinuousClock.now - record.start)
            answer.metrics = metrics
            return answer
        }
        await progress?.flush()
        return answer
    }

    /// The pipeline of a request whose 2xx body is read as it arrives: ``perform(_:record:)``
    /// with the body streamed, then `consume` with the response (its head, for a live body); a
    /// failure of either is reported once.
    func streaming<Result>(
        _ request: Request<Data>,
        _ consume: (TransportResponse, inout RequestRecord) async throws(CourierError) -> Result
    ) async throws(CourierError) -> Result {
        let id = RequestID.next()
        let settings = request.settings
        var record = beginRecord(settings, id: id, streamsBody: true)
        do throws(CourierError) {
            let response = try await perform(settings, record: &record)
            return try await consume(response, &record)
        } catch {
            throw await report(finish(&record, failure: error), record: record, settings: settings)
        }
    }

    /// Writes a body to a file beside `destination` as it arrives, reporting progress against
    /// `total` (the last report: every byte, as the total), then moves it into place; the part
    /// written is removed on failure or cancellation.
    private static func write(_ body: LiveBody, to destination: URL, total: Int64?, progress: ProgressRelay?) async throws(CourierError) {
        var file: PartialDownload
        do {
            file = try PartialDownload(for: destination)
        } catch {
            body.stop()
            throw CourierError.wrap(error, url: destination)
        }
        var written: Int64 = 0
        progress?.report(TransferProgress(completed: 0, total: total))
        do {
            while let piece = try await body.next() {
                try file.write(piece)
                written += Int64(piece.count)
                progress?.report(TransferProgress(completed: total.map { min(written, $0) } ?? written, total: total))
            }
            try file.commit()
            progress?.report(TransferProgress(completed: written, total: written))
        } catch {
            body.stop()
            file.discard()
            throw CourierError.wrap(error, url: body.url)
        }
    }
}
