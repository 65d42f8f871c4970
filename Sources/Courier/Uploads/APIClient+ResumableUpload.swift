import Foundation

extension APIClient {
    /// Uploads `file` so that a dropped connection, a failure or a relaunch resumes where the
    /// server's copy stopped instead of sending the file again from its first byte, in `using`:
    /// ``ResumableUploadProtocol/tus`` or ``ResumableUploadProtocol/ietfDraft``.
    ///
    /// `request` creates the upload: its URL is the server's upload endpoint (tus: the creation
    /// URL, such as `"files/"`; the IETF draft: the resource the file is sent to), its headers go
    /// with the creation, and it is sent as a `POST` (with no body, or with the first piece when
    /// ``ResumableUploadProtocol/discovered`` found tus's `creation-with-upload`). With tus and without an
    /// `Upload-Metadata` header of its own, the creation names the file (`filename`, its last path
    /// component) and its type (`filetype`, `application/octet-stream`), as tus clients do. The upload is kept under `identifier` (a file name of
    /// your choice, such as `"video-42"`): call again with the same identifier, in this process or
    /// after a relaunch, and it continues.
    ///
    /// - Each answer is checked before the next byte goes out. A server that confirms more than was
    ///   sent fails with ``CourierError/Kind/invalidResponse`` and the upload is forgotten; an
    ///   offset it did not confirm (a request that failed on its way, a `409`) is learnt again with
    ///   `HEAD`, never assumed; an upload the server no longer has (`404`, `410`) starts again once.
    /// - A failure on the way resumes under the request's or client's ``RetryPolicy`` (for every
    ///   step, whatever its method: the offset is always learnt again first); its attempts count
    ///   from the last one that moved the upload on.
    /// - What is kept: the upload's URL, the file's length and modification date, the offset the
    ///   server confirmed, and the SHA-256 of the part it confirmed. The digest is taken when a call
    ///   ends with the upload unfinished, not while the bytes go out; after a process was killed part
    ///   way, it covers what the last call that ended kept, and the length and date vouch for the
    ///   rest. A file that changed since (another length or date, or a hashed part that reads
    ///   differently) starts a new upload.
    ///   ``resumableUploads()`` lists what is kept; ``logout()`` erases the user's.
    /// - Upload progress counts the bytes sent against the file's length, as they go; after a
    ///   failure it holds until the bytes sent again pass where it stood.
    /// - Every step goes through the pipeline like ``send(_:)``: credentials (refreshed on a `401`),
    ///   hooks, metrics and a span per request; the failure an upload ends with is reported once.
    ///
    /// A `file` that is not a readable file, a `chunkSize` below 1 byte, a request with a body, an
    /// identifier that is not a safe file name, or one whose upload already runs in this client
    /// fails with ``CourierError/Kind/invalidRequest`` before anything is sent. A file that changes
    /// while it is sent fails with ``CourierError/Kind/invalidRequest`` too, and its upload is
    /// forgotten.
    ///
    /// - Parameter chunkSize: the most bytes sent per request (`PATCH`), for servers that limit a
    ///   request's size; `nil` (the default) sends the rest of the file in one request, which only
    ///   a failure splits. Either way the body is streamed from the file, never held in memory.
    /// - Returns: the server's answer to the request that completed the upload. Its
    ///   ``Response/metrics`` count the whole upload's body bytes the transport wrote in
    ///   ``RequestMetrics/bytesSent``, bytes sent again after a failure included.
    public func upload(
        _ request: Request<Data>, from file: URL, resuming identifier: String, using uploadProtocol: ResumableUploadProtocol = .tus,
        chunkSize: Int? = nil
    ) async throws(CourierError) -> Response<Data> {
        let scope = userScope
        let claim = "upload:" + scope + "/" + identifier
        if let problem = Self.uploadProblem(request, file: file, identifier: identifier, chunkSize: chunkSize)
            ?? claimTransfer(claim, "upload", identifier: identifier) {
            return try await recorded(request.settings) { _ throws(CourierError) -> Response<Data> in throw problem }
        }
        defer { activeDownloads.withLock { _ = $0.remove(claim) } }
        return try await recorded(request.settings) { record throws(CourierError) -> Response<Data> in
            var upload = try ResumableUploadRun(
                client: self, request: request, file: file, identifier: identifier, scope: scope, uploadProtocol: uploadProtocol,
                chunkSize: chunkSize)
            let answer = try await upload.run()
            _ = finish(&record, source: .network, statusCode: answer.statusCode)
            return answer
        }
    }

    /// The uploads kept for the current user, to resume (``upload(_:from:resuming:using:chunkSize:)``
    /// with the same identifier) or discard.
    public func resumableUploads() -> [ResumableUpload] {
        uploadStore.list(scope: userScope)
    }

    /// Forgets the current user's upload `identifier`, and asks the server to delete what it holds
    /// of it (`DELETE`: tus termination, the draft's cancellation); a server that cannot is not an
    /// error.
    public func discardResumableUpload(_ identifier: String) async {
        guard DownloadStore.problem(identifier: identifier, destination: URL(fileURLWithPath: "/"), sha256: nil) == nil else { return }
        let scope = userScope
        guard let record = uploadStore.record(identifier, scope: scope) else { return }
        uploadStore.discard(identifier, scope: scope)
        let uploadProtocol = ResumableUploadProtocol.named(record.protocolName) ?? .tus
        var delete = Request<Data>(.delete, record.uploadURL, headers: uploadProtocol.headers)
        delete.retryPolicy = RetryPolicy.none
        delete.suppressErrorAlert = true
        _ = try? await send(delete)
    }

    var uploadStore: UploadStore { UploadStore(downloads: downloadStore) }

    /// Why an upload cannot start, before anything is sent.
    private static func uploadProblem(_ request: Request<Data>, file: URL, identifier: String, chunkSize: Int?) -> CourierError? {
        if let problem = DownloadStore.problem(identifier: identifier, destination: file, sha256: nil) {
            return CourierError(.invalidRequest, problem.message.replacingOccurrences(of: "download", with: "upload"))
        }
        if let chunkSize, chunkSize < 1 {
            return CourierError(
                .invalidRequest,
                "The upload's chunk size is \(chunkSize) bytes; give at least 1 byte, or nil to send the rest of the file in one request. Nothing was sent.")
        }
        guard case .none = request.body.content else {
            return CourierError(
                .invalidRequest,
                "The request that creates the upload \(identifier) has a body; the file is the body, so give none. Nothing was sent.")
        }
        guard uploadableLength(of: file) != nil else {
            return CourierError(.invalidRequest, "The file \(file.path) to upload is not a readable file. Nothing was sent.")
        }
        return nil
    }

    /// The length of `file` when it is a readable file (not a folder), else `nil`: what
    /// ``upload(_:from:resuming:using:chunkSize:)`` and the outbox's uploads check first.
    package static func uploadableLength(of file: URL) -> Int64? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: file.path),
              let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber
        else { return nil }
        return size.int64Value
    }
}

/// One run of a resumable upload: the kept record read and checked, then creation, `HEAD` and
/// `PATCH` requests until the server holds the whole file, resumed under the retry policy. tus and
/// the IETF draft differ only in their headers and the `PATCH`'s content type.
struct ResumableUploadRun {
    let client: APIClient
    /// The protocol spoken: the one asked for, or once discovered, the one the server speaks.
    var uploadProtocol: ResumableUploadProtocol
    /// Whether the protocol was discovered, and the first piece goes with a tus creation.
    var discovery: (done: Bool, firstPieceWithCreation: Bool) = (false, false)
    /// The body bytes the transport wrote, over every request.
    let sent = SentBytes()
    let request: Request<Data>
    let file: URL
    let identifier: String
    let scope: String
    /// The most bytes sent per request.
    let chunkSize: Int64
    let size: Int64
    let modified: Double
    let store: UploadStore
    let progress: ProgressRelay?
    /// What is kept, once the upload exists on the server.
    var record: UploadStore.Record?
    /// The digest of the part the server confirmed.
    var digest: UploadDigest
    /// Whether the server's offset must be learnt before the next byte goes out.
    var needsOffset: Bool
    /// Fresh starts after the server forgot the upload.
    var restarts = 0

    init(
        client: APIClient, request: Request<Data>, file: URL, identifier: String, scope: String, uploadProtocol: ResumableUploadProtocol,
        chunkSize: Int?
    ) throws(CourierError) {
        self.client = client
        self.uploadProtocol = uploadProtocol
        self.request = request
        self.file = file
        self.identifier = identifier
        self.scope = scope
        self.chunkSize = chunkSize.map { Int64($0) } ?? .max
        store = client.uploadStore
        progress = request.uploadProgress.map {
            ProgressRelay(handler: $0, queue: request.callbackQueue ?? client.configuration.callbackQueue)
        }
        guard let identity = Self.identity(of: file) else {
            throw CourierError(.invalidRequest, "The file \(file.path) to upload could not be read. Nothing was sent.")
        }
        (size, modified) = identity
        digest = UploadDigest(file: file)
        record = store.record(identifier, scope: scope)
        // A kept upload continues only for the same file, unchanged: same length, same date, and a
        // confirmed part that still reads the same.
        if let kept = record {
            if uploadProtocol == .discovered { self.uploadProtocol = ResumableUploadProtocol.named(kept.protocolName) ?? .discovered }
            let hashed = kept.hashed ?? kept.confirmed
            var same = kept.protocolName == self.uploadProtocol.name && kept.file == file.path && kept.size == size && kept.modified == modified
                && (0...size).contains(kept.confirmed) && (0...size).contains(hashed)
            if same {
                try digest.cover(upTo: hashed)
                same = digest.hex == kept.sentSHA256
                record?.hashed = hashed
            }
            if !same {
                store.discard(identifier, scope: scope)
                record = nil
                digest.reset()
            }
        }
        needsOffset = record != nil
    }

    /// Runs the upload to its end, resuming after failures under the retry policy.
    mutating func run() async throws(CourierError) -> Response<Data> {
        let policy = request.retryPolicy ?? client.configuration.retryPolicy
        var schedule = AttemptSchedule(policy)
        var confirmed = record?.confirmed ?? 0
        progress?.report(TransferProgress(completed: confirmed, total: size))
        while true {
            do throws(CourierError) {
                var answer = try await attempt()
                store.discard(identifier, scope: scope)
                await progress?.flush()
                answer.metrics.bytesSent = sent.total
                return answer
            } catch {
                // A file that changed under the upload ends it, whatever failure that caused.
                try checkUnchanged()
                needsOffset = record != nil
                // Every step resumes whatever its method (the offset is learnt first), but not after
                // the app's bad input or an answer that cannot be trusted.
                guard let delay = schedule.resume(
                    after: error, reached: &confirmed, now: record?.confirmed ?? 0,
                    resumes: error.kind != .invalidRequest && error.kind != .invalidResponse)
                else {
                    keepDigest()
                    throw error
                }
                try? await schedule.wait(delay)  // a cancellation ends the wait; the next step then fails as cancelled
            }
        }
    }

    /// Steps until the upload is whole or a step fails.
    private mutating func attempt() async throws(CourierError) -> Response<Data> {
        var stalls = 0
        while true {
            guard var current = record else {
                let created = try await create()
                if record?.confirmed ?? size == size { return created }
                continue
            }
            if needsOffset {
                let head: Response<Data>
                do throws(CourierError) {
                    head = try await step(.head, current.uploadURL)
                } catch where Self.forgotten(error) {
                    try forget(error)
                    continue
                }
                if let length = head.headers["Upload-Length"].flatMap({ Int64($0) }), length != size {
                    try forget(CourierError(.invalidResponse, "The server's upload \(identifier) is \(length) bytes long, not the file's \(size).", url: head.url))
                    continue
                }
                let offset = try confirmedOffset(in: head, sent: max(current.confirmed, current.sending))
                try confirm(offset, in: &current)
                needsOffset = false
                // Whole. A draft upload is complete only once a request said so: when the one that
                // did failed, an empty last append says it again.
                if offset == size, uploadProtocol == .tus || head.headers["Upload-Complete"] == "?1" { return head }
            }
            let start = current.confirmed
            try checkUnchanged()
            current.sending = start + min(chunkSize, size - start)
            try store.save(current, identifier, scope: scope)
            record = current
            var headers: HTTPHeaders = ["Upload-Offset": String(start)]
            let contentType: String
            if uploadProtocol == .tus {
                contentType = "application/offset+octet-stream"
            } else {
                contentType = "application/partial-upload"
                headers["Upload-Complete"] = current.sending == size ? "?1" : "?0"
            }
            let answer: Response<Data>
            do throws(CourierError) {
                answer = try await step(.patch, current.uploadURL, body: piece(from: start, to: current.sending, contentType: contentType), headers: headers)
            } catch where Self.forgotten(error) {
                try forget(error)
                continue
            } catch where error.statusCode == 409 {
                // The server holds another offset than the one sent: learnt again.
                needsOffset = true
                stalls += 1
                if stalls > 3 { throw error }
                continue
            }
            let offset = try confirmedOffset(in: answer, sent: current.sending)
            if offset == size {
                try confirm(offset, in: &current)
                return answer
            }
            guard offset > start else {
                needsOffset = true
                stalls += 1
                if stalls > 3 {
                    throw CourierError(.invalidResponse, "The server took none of the upload \(identifier)'s bytes at \(start), four times over.", url: answer.url)
                }
                continue
            }
            stalls = 0
            try confirm(offset, in: &current)
        }
    }

    /// Creates the upload on the server and keeps it (learning the protocol first, when asked to).
    private mutating func create() async throws(CourierError) -> Response<Data> {
        if uploadProtocol == .discovered { try await discover() }
        var creation = request
        creation.method = .post
        for field in uploadProtocol.headers { creation.headers[field.name] = field.value }
        creation.headers["Upload-Length"] = String(size)
        if uploadProtocol == .ietfDraft {
            // An empty file is whole at once.
            creation.headers["Upload-Complete"] = size == 0 ? "?1" : "?0"
        } else if creation.headers["Upload-Metadata"] == nil {
            // What tus clients send unless told otherwise, and some servers require.
            let name = Data(file.lastPathComponent.utf8).base64EncodedString()
            creation.headers["Upload-Metadata"] = "filename \(name),filetype \(Data("application/octet-stream".utf8).base64EncodedString())"
        }
        Self.asStep(&creation)
        creation.uploadProgress = nil
        creation.downloadProgress = nil
        digest.reset()
        var firstPiece: Int64 = 0
        if discovery.firstPieceWithCreation, size > 0 {
            try checkUnchanged()
            firstPiece = min(chunkSize, size)
            creation.streamedBody = piece(from: 0, to: firstPiece, contentType: "application/offset+octet-stream")
            creation.sentBodyObserver = observer(from: 0)
        }
        defer { sent.endRequest() }
        let created = try await client.send(creation)
        if uploadProtocol == .ietfDraft, size == 0 { return created }  // whole at once: the target's answer
        guard let location = created.headers["Location"], let url = URL(string: location, relativeTo: created.url)?.absoluteURL,
              url.scheme == "http" || url.scheme == "https"
        else {
            throw CourierError(
                .invalidResponse,
                "The server answered the creation of the upload \(identifier) with \(created.statusCode) and no usable Location; it does not speak \(discovery.done ? "tus (its OPTIONS answer has no Tus-Version 1.0.0) nor the IETF draft" : uploadProtocol.description) there.",
                url: created.url, statusCode: created.statusCode, headers: created.headers)
        }
        var fresh = UploadStore.Record(
            protocolName: uploadProtocol.name, uploadURL: url.absoluteString, file: file.path, size: size, modified: modified,
            confirmed: 0, sentSHA256: digest.hex, hashed: 0, sending: firstPiece)
        try store.save(fresh, identifier, scope: scope)
        record = fresh
        needsOffset = false
        if firstPiece > 0 {
            // The server says how much of the first piece it took; without an offset, it is asked.
            guard created.headers["Upload-Offset"] != nil else {
                needsOffset = true
                return created
            }
            let offset = try confirmedOffset(in: created, sent: firstPiece)
            try confirm(offset, in: &fresh)
        }
        return created
    }

    /// Learns the protocol the server speaks at the creation URL: tus when its answer to `OPTIONS`
    /// lists version 1.0.0, else the draft (whose creation then says whether the server speaks it).
    private mutating func discover() async throws(CourierError) {
        var options = request
        options.method = .options
        options.headers["Tus-Resumable"] = "1.0.0"
        Self.asStep(&options)
        options.uploadProgress = nil
        options.downloadProgress = nil
        let headers: HTTPHeaders
        do throws(CourierError) {
            headers = try await client.send(options).headers
        } catch where error.statusCode != nil {
            // An answer, but not one that offers tus (a 404 or 405 to OPTIONS): the draft is tried.
            headers = [:]
        }
        func list(_ name: String) -> [String] {
            (headers[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let tus = list("Tus-Version").contains("1.0.0")
        uploadProtocol = tus ? .tus : .ietfDraft
        discovery = (true, tus && list("Tus-Extension").contains("creation-with-upload"))
    }

    /// What a request reports as its body goes out: the bytes written, and the upload's progress
    /// from `start`.
    private func observer(from start: Int64) -> ProgressHandler {
        { [sent, progress, size] piece in
            sent.update(piece.completed)
            progress?.report(TransferProgress(completed: start + piece.completed, total: size))
        }
    }

    /// The file's bytes from `start` to `end`, streamed as a request's body.
    private func piece(from start: Int64, to end: Int64, contentType: String) -> StreamedBody {
        StreamedBody(segments: [.file(file, from: start, length: end - start)], contentType: contentType)
    }

    /// One request of the upload, through the pipeline, its failures left to the upload.
    private func step(
        _ method: HTTPMethod, _ url: String, body: StreamedBody? = nil, headers: HTTPHeaders = [:]
    ) async throws(CourierError) -> Response<Data> {
        var step = Request<Data>(method, url, headers: headers)
        if let body, let segment = body.segments.first, case .file(_, let start, _) = segment.content {
            step.streamedBody = body
            step.sentBodyObserver = observer(from: start)
        }
        defer { sent.endRequest() }
        for field in uploadProtocol.headers { step.headers[field.name] = field.value }
        Self.asStep(&step)
        step.timeout = request.timeout
        return try await client.send(step)
    }

    /// Makes `request` one step of the upload: never retried on its own (the upload resumes),
    /// never shared, its failures reported once by the upload rather than alerted.
    private static func asStep(_ request: inout Request<Data>) {
        request.retryPolicy = RetryPolicy.none
        request.deduplication = false
        request.suppressErrorAlert = true
    }

    /// A failure that says the server no longer has the upload.
    private static func forgotten(_ error: CourierError) -> Bool {
        error.statusCode == 404 || error.statusCode == 410
    }

    /// Forgets the upload the server no longer has, so the next step creates it again; the
    /// second time in one call, fails with `error`.
    private mutating func forget(_ error: CourierError) throws(CourierError) {
        store.discard(identifier, scope: scope)
        record = nil
        needsOffset = false
        restarts += 1
        guard restarts <= 1 else {
            throw CourierError(
                .invalidResponse, "The server lost the upload \(identifier) again after it was started over: \(error.message)", url: error.url,
                underlyingError: error)
        }
    }

    /// The `Upload-Offset` of a tus answer, at most `sent` (what went out, or may have): a server
    /// that claims more is not believed, and the upload is forgotten.
    private mutating func confirmedOffset(in answer: Response<Data>, sent: Int64) throws(CourierError) -> Int64 {
        guard let text = answer.headers["Upload-Offset"], let offset = Int64(text), offset >= 0 else {
            throw CourierError(
                .invalidResponse,
                "The server's answer for the upload \(identifier) has no valid Upload-Offset (\(answer.headers["Upload-Offset"] ?? "none")); it does not speak \(uploadProtocol) there.",
                url: answer.url, statusCode: answer.statusCode, headers: answer.headers)
        }
        guard offset <= min(sent, size) else {
            store.discard(identifier, scope: scope)
            record = nil
            throw CourierError(
                .invalidResponse,
                "The server says it holds \(offset) bytes of the upload \(identifier), but at most \(min(sent, size)) of its \(size) were sent; the upload was forgotten. Start it again.",
                url: answer.url, statusCode: answer.statusCode, headers: answer.headers)
        }
        return offset
    }

    /// Keeps `offset` as confirmed, and reports it.
    private mutating func confirm(_ offset: Int64, in current: inout UploadStore.Record) throws(CourierError) {
        current.confirmed = offset
        current.sending = offset
        try store.save(current, identifier, scope: scope)
        record = current
        progress?.report(TransferProgress(completed: offset, total: size))
    }

    /// Keeps the SHA-256 of the confirmed part, for a later call to check the file against, when a
    /// call ends with the upload unfinished. A file that cannot be read then leaves the digest kept
    /// before, which still holds for the bytes it covers.
    private mutating func keepDigest() {
        guard var current = record, current.hashed != current.confirmed else { return }
        do throws(CourierError) {
            try digest.cover(upTo: current.confirmed)
            current.sentSHA256 = digest.hex
            current.hashed = current.confirmed
            try store.save(current, identifier, scope: scope)
            record = current
        } catch {
            return
        }
    }

    /// The file's length and modification date (seconds since 1970), or `nil` when it cannot be read.
    private static func identity(of file: URL) -> (size: Int64, modified: Double)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else { return nil }
        return ((attributes[.size] as? NSNumber)?.int64Value ?? 0, (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
    }

    /// Fails, forgetting the upload, when the file is no longer the one whose upload this is
    /// (another length or modification date): checked before each request that sends its bytes.
    private mutating func checkUnchanged() throws(CourierError) {
        if let now = Self.identity(of: file), now == (size, modified) { return }
        store.discard(identifier, scope: scope)
        record = nil
        throw CourierError(
            .invalidRequest, "The file \(file.path) changed while it was being uploaded as \(identifier); the upload was forgotten. Upload it again.")
    }
}

/// The body bytes a resumable upload's requests wrote, as their transports reported them: per
/// request the most reported, summed when the request ends.
final class SentBytes: Sendable {
    private let counts = Locked<(request: Int64, total: Int64)>((0, 0))

    func update(_ completed: Int64) { counts.withLock { $0.request = max($0.request, completed) } }

    func endRequest() {
        counts.withLock {
            $0.total += $0.request
            $0.request = 0
        }
    }

    var total: Int64 { counts.withLock { $0.total } }
}
