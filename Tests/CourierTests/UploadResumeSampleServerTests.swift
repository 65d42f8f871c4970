import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Resumable uploads against the sample server's own routes for both protocols (`/uploads/tus`,
/// `/uploads/resumable`), which can cut a body part way (`Test-Drop-Every`) as a dropped
/// connection would, on both transports.
@Suite
struct UploadResumeSampleServerTests {
    struct Summary: Decodable {
        var offset: Int64
        var sha256: String?
    }

    struct Whole: Decodable {
        var size: Int64
        var sha256: String
    }

    static let protocols: [(ResumableUploadProtocol, String)] = [(.tus, "uploads/tus"), (.ietfDraft, "uploads/resumable")]

    /// A client of `server` keeping its uploads in `directory`; with `dropEvery`, the server cuts
    /// every request's body when the bytes it took reach a multiple of it.
    static func client(_ server: ImageStoreServer, _ transport: any HTTPTransport, _ directory: URL, dropEvery: Int? = nil) -> APIClient {
        server.client(transport) {
            $0.errorPresenter = nil
            $0.resumableDownloadsDirectory = directory
            $0.callbackQueue = DispatchQueue(label: "upload-progress")
            $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
            if let dropEvery { $0.defaultHeaders["Test-Drop-Every"] = String(dropEvery) }
        }
    }

    /// The SHA-256 the server computed of the whole upload: the draft's last answer carries it;
    /// a tus upload's resource tells it.
    static func digest(_ answer: Response<Data>, _ client: APIClient, _ uploadProtocol: ResumableUploadProtocol) async throws -> String? {
        if uploadProtocol == .ietfDraft { return try ModelDecoder().decode(Whole.self, from: answer.data).sha256 }
        // The answer to a PATCH, or to a creation that carried the whole file (its Location).
        let resource = answer.headers["Location"].flatMap { URL(string: $0, relativeTo: answer.url)?.absoluteURL } ?? answer.url
        return try await client.send(Request<Summary>(.get, resource.absoluteString)).value.sha256
    }

    /// Cut part way through pieces (and so in the middle of requests) five times, each protocol
    /// resumes from what the server kept, within one call: the server's digest is the file's, it
    /// took every byte once, and progress ends at the file's length.
    @Test(arguments: TransportKind.allCases, [0, 1])
    func cutBodiesResumeWhereTheServerStopped(kind: TransportKind, protocolIndex: Int) async throws {
        let (uploadProtocol, endpoint) = Self.protocols[protocolIndex]
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = Self.client(server, transport, directory.url, dropEvery: 1 << 20 + 4_321)
                let size = 5 << 20 + 123
                let file = try UploadResumeTests.file(size, in: directory.url)
                let reports = Locked<[TransferProgress]>([])
                var request = Request<Data>(.post, endpoint)
                request.uploadProgress = { progress in reports.withLock { $0.append(progress) } }
                request.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))
                let answer = try await client.upload(request, from: file, resuming: "cut", using: uploadProtocol, chunkSize: 1 << 20)
                #expect(try await Self.digest(answer, client, uploadProtocol) == (try UploadResumeTests.sha256(file)))
                let received = server.flakyAttempts("uploads/received")
                let drops = server.flakyAttempts("uploads/drops")
                print(
                    "\(uploadProtocol) upload on the sample server, \(kind): server kept \(received) bytes for a file of \(size) (\(String(format: "%.3f", Double(received) / Double(size)))), transport wrote \(answer.metrics.bytesSent) (\(String(format: "%.3f", Double(answer.metrics.bytesSent) / Double(size)))), \(drops) cuts"
                )
                #expect(received == size, "no byte the server kept was sent again")
                #expect(drops == size / (1 << 20 + 4_321))
                #expect(answer.metrics.bytesSent >= Int64(size))
                let seen = reports.withLock { $0 }
                #expect(seen.last == TransferProgress(completed: Int64(size), total: Int64(size)))
                #expect(client.resumableUploads().isEmpty)
            }
        }
    }

    /// Another writer appends to the upload between two of the client's `PATCH`es: the server
    /// answers the client's stale offset with `409`, and the client learns the offset with `HEAD`
    /// and goes on from there, so the server's copy is still the file's, in each protocol.
    @Test(arguments: TransportKind.allCases, [0, 1])
    func anOffsetMismatchIsLearntAgain(kind: TransportKind, protocolIndex: Int) async throws {
        /// Before the client's second `PATCH`, appends the file's next 64 KiB itself.
        struct Interloper: APIClientDelegate {
            let file: URL
            let other: APIClient
            let uploadProtocol: ResumableUploadProtocol
            let patches = Locked(0)

            func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
                guard request.method == .patch, patches.withLock({ $0 += 1; return $0 }) == 2,
                      let offset = request.headers["Upload-Offset"].flatMap({ UInt64($0) })
                else { return request }
                let handle = try FileHandle(forReadingFrom: file)
                try handle.seek(toOffset: offset)
                let bytes = try handle.read(upToCount: 65_536) ?? Data()
                try handle.close()
                var append = Request<Data>(
                    .patch, request.url.absoluteString,
                    body: .data(bytes, contentType: uploadProtocol == .tus ? "application/offset+octet-stream" : "application/partial-upload"),
                    headers: ["Upload-Offset": String(offset)])
                if uploadProtocol == .tus {
                    append.headers["Tus-Resumable"] = "1.0.0"
                } else {
                    append.headers["Upload-Draft-Interop-Version"] = "6"
                    append.headers["Upload-Complete"] = "?0"
                }
                _ = try await other.send(append)
                return request
            }
        }
        let (uploadProtocol, endpoint) = Self.protocols[protocolIndex]
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let size = 3 << 20
                let file = try UploadResumeTests.file(size, in: directory.url)
                let client = server.client(transport) {
                    $0.errorPresenter = nil
                    $0.resumableDownloadsDirectory = directory.url
                    $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
                    $0.delegate = Interloper(file: file, other: server.client(URLSessionTransport()), uploadProtocol: uploadProtocol)
                }
                let answer = try await client.upload(Request(.post, endpoint), from: file, resuming: "shared", using: uploadProtocol, chunkSize: 1 << 20)
                #expect(try await Self.digest(answer, client, uploadProtocol) == (try UploadResumeTests.sha256(file)))
                // One append, the other writer's, the client's refused one, then the rest from the offset learnt.
                #expect(server.requestCount("HEAD", "/\(endpoint)/{id}") == 1)
                #expect(server.requestCount("PATCH", "/\(endpoint)/{id}") == 5)
                #expect(server.flakyAttempts("uploads/received") == size, "each byte kept once")
            }
        }
    }

    /// A cut right after the last byte (the server holds the whole file, the answer is lost): the
    /// upload learns with HEAD that the server holds it all; a draft upload, not complete until a
    /// request says so, sends an empty last append that does.
    @Test(arguments: TransportKind.allCases, [0, 1])
    func aCutAfterTheLastByteStillCompletes(kind: TransportKind, protocolIndex: Int) async throws {
        let (uploadProtocol, endpoint) = Self.protocols[protocolIndex]
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let every = 700_000
                let client = Self.client(server, transport, directory.url, dropEvery: every)
                let file = try UploadResumeTests.file(2 * every, in: directory.url)
                let answer = try await client.upload(Request(.post, endpoint), from: file, resuming: "end", using: uploadProtocol, chunkSize: 1 << 20)
                #expect(try await Self.digest(answer, client, uploadProtocol) == (try UploadResumeTests.sha256(file)))
                #expect(server.flakyAttempts("uploads/drops") == 2, "cut in the middle, then after the last byte")
                #expect(server.flakyAttempts("uploads/received") == 2 * every)
            }
        }
    }

    /// `.discovered` learns tus from the answer to `OPTIONS` (and sends a small file whole with the
    /// creation, tus's creation-with-upload), and the draft from its creation's answer where
    /// `OPTIONS` offers no tus.
    @Test(arguments: TransportKind.allCases)
    func discoveryFindsEachProtocol(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = Self.client(server, transport, directory.url)
                let file = try UploadResumeTests.file(300_000, in: directory.url)
                let tus = try await client.upload(Request(.post, "uploads/tus"), from: file, resuming: "found-tus", using: .discovered)
                #expect(tus.statusCode == 201, "the creation carried the whole file")
                #expect(try await Self.digest(tus, client, .tus) == (try UploadResumeTests.sha256(file)))
                #expect(server.requestCount("OPTIONS", "/uploads/tus") == 1)
                #expect(server.requestCount("PATCH", "/uploads/tus/{id}") == 0)

                let draft = try await client.upload(
                    Request(.post, "uploads/resumable"), from: file, resuming: "found-draft", using: .discovered, chunkSize: 100_000)
                #expect(try await Self.digest(draft, client, .ietfDraft) == (try UploadResumeTests.sha256(file)))
                #expect(server.requestCount("PATCH", "/uploads/resumable/{id}") == 3)

                let error = try await #require(throws: CourierError.self) {
                    try await client.upload(Request(.post, "echo/post"), from: file, resuming: "neither", using: .discovered)
                }
                #expect(error.kind == .invalidResponse)
                #expect(error.message.contains("does not speak tus"), "\(error.message)")
            }
        }
    }

    /// Progress moves within a piece, as its bytes go, and never backwards.
    @Test(arguments: TransportKind.allCases)
    func progressMovesWithinAPiece(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = Self.client(server, transport, directory.url)
                let size = 4 << 20
                let file = try UploadResumeTests.file(size, in: directory.url)
                let reports = Locked<[TransferProgress]>([])
                var request = Request<Data>(.post, "uploads/tus")
                request.uploadProgress = { progress in reports.withLock { $0.append(progress) } }
                _ = try await client.upload(request, from: file, resuming: "one-piece", chunkSize: size)
                let seen = reports.withLock { $0 }
                #expect(seen.contains { $0.completed > 0 && $0.completed < Int64(size) }, "\(seen.map(\.completed))")
                #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completed < $1.completed })
                #expect(seen.last?.completed == Int64(size))
            }
        }
    }

    /// By default the rest of the file goes in one request, streamed from the file: a file far
    /// larger than a transport's piece takes one creation and one append, on each protocol, and
    /// so does a chunk size past the file's end.
    @Test(arguments: TransportKind.allCases, [nil, 1 << 40])
    func theRestOfTheFileGoesInOneRequest(kind: TransportKind, chunkSize: Int?) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = Self.client(server, transport, directory.url)
                let size = 24 << 20
                let file = try UploadResumeTests.file(size, in: directory.url)
                for (endpoint, kind) in [("uploads/tus", ResumableUploadProtocol.tus), ("uploads/resumable", .ietfDraft)] {
                    let answer = try await client.upload(Request(.post, endpoint), from: file, resuming: "one-request", using: kind, chunkSize: chunkSize)
                    #expect(answer.metrics.bytesSent == Int64(size))
                    #expect(server.requestCount("PATCH", "/\(endpoint)/{id}") == 1, "\(endpoint)")
                    #expect(server.requestCount("POST", "/\(endpoint)") == 1, "\(endpoint)")
                }
            }
        }
    }

    /// A file cut short while its bytes go out fails the upload with `.invalidRequest`, which says
    /// so, and the upload is forgotten; nothing more of it is sent.
    @Test(arguments: TransportKind.allCases)
    func aFileChangedWhileItIsSentFailsTheUpload(kind: TransportKind) async throws {
        struct Truncating: APIClientDelegate {
            let file: URL
            func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest {
                if request.method == .patch {
                    let handle = try FileHandle(forWritingTo: file)
                    try handle.truncate(atOffset: 1 << 20)
                    try handle.close()
                }
                return request
            }
        }
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let file = try UploadResumeTests.file(6 << 20, in: directory.url)
                let client = server.client(transport) {
                    $0.errorPresenter = nil
                    $0.resumableDownloadsDirectory = directory.url
                    $0.retryPolicy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1))
                    $0.delegate = Truncating(file: file)
                }
                let error = try await #require(throws: CourierError.self) {
                    try await client.upload(Request(.post, "uploads/tus"), from: file, resuming: "shrinking")
                }
                #expect(error.kind == .invalidRequest, "\(error)")
                #expect(error.message.contains("changed while it was being"), "\(error.message)")
                #expect(client.resumableUploads().isEmpty)
                #expect(server.requestCount("PATCH", "/uploads/tus/{id}") <= 1)
            }
        }
    }
}
