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

    /// A chunk size past the largest piece held in memory is refused before anything is sent.
    @Test func aChunkSizeTooLargeIsRefused() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            let client = Self.client(server, URLSessionTransport(), directory.url)
            let file = try UploadResumeTests.file(10, in: directory.url)
            let error = try await #require(throws: CourierError.self) {
                try await client.upload(Request(.post, "uploads/tus"), from: file, resuming: "big", chunkSize: 1 << 30)
            }
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("256 MiB") && error.message.contains("Nothing was sent"), "\(error.message)")
            #expect(server.requestCount("/uploads/tus") == 0)
        }
    }
}
