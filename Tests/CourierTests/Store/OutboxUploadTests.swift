import Courier
import CourierStore
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// A queued write whose body is a file, kept as a resumable upload, against the sample server's
/// routes for each protocol, which cut the body part way as a dropped connection would.
@Suite struct OutboxUploadTests {
    struct Summary: Decodable {
        var offset: Int64
        var sha256: String?
    }

    /// Each flush that meets a cut leaves the entry waiting; the next resumes the upload where
    /// the server stopped: the server takes every byte of the file once, its digest is the file's,
    /// and nothing is left of the entry or its upload.
    @Test(arguments: [ResumableUploadProtocol.tus, .ietfDraft])
    func aQueuedUploadResumesAcrossFlushesAndArrivesOnce(uploadProtocol: ResumableUploadProtocol) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            let client = server.client(URLSessionTransport()) {
                $0.errorPresenter = nil
                $0.resumableDownloadsDirectory = directory.url.appendingPathComponent("kept")
                $0.defaultHeaders["Test-Drop-Every"] = String(1 << 20 + 4_321)
            }
            let store = try CourierStore(path: directory.url.appendingPathComponent("app.sqlite"))
            let outbox = try Outbox(store: store, client: client, baseDelay: .zero)
            let size = 3 << 20 + 5
            let file = try UploadResumeTests.file(size, in: directory.url)
            let digest = try UploadResumeTests.sha256(file)
            let endpoint = uploadProtocol == .tus ? "uploads/tus" : "uploads/resumable"
            try await outbox.enqueue(upload: Request<Data>(.post, endpoint), from: file, using: uploadProtocol)
            try FileManager.default.removeItem(at: file)  // the outbox keeps its own copy

            let first = try await outbox.flush()
            #expect(first.deferred == 1 && first.remaining == 1)
            let kept = try #require(client.resumableUploads().first)
            var flushes = 1
            var last = first
            while last.remaining > 0, flushes < 10 {
                last = try await outbox.flush()
                flushes += 1
            }
            #expect(last.sent == 1 && last.remaining == 0, "\(last)")
            #expect(try await outbox.deadLetters().isEmpty)
            #expect(server.flakyAttempts("uploads/drops") == 2)
            #expect(server.flakyAttempts("uploads/received") == size, "every byte once")
            let summary = try await client.send(Request<Summary>(.get, kept.uploadURL.absoluteString)).value
            #expect(summary.sha256 == digest)
            #expect(client.resumableUploads().isEmpty)
            print("outbox \(uploadProtocol) upload: \(flushes) flushes, server took \(server.flakyAttempts("uploads/received")) bytes of \(size)")
        }
    }

    /// What cannot be kept as an upload is refused, and nothing is kept.
    @Test func badUploadsAreRefusedBeforeAnythingIsKept() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let file = try UploadResumeTests.file(10, in: directory.url)
            let onDisk = try Outbox(store: try CourierStore(path: directory.url.appendingPathComponent("app.sqlite")), client: client)
            let inMemory = try Outbox(store: try CourierStore.inMemory(), client: client)
            let cases: [(String, Outbox, Request<Data>, URL)] = [
                ("a PUT", onDisk, Request(.put, "uploads/tus"), file),
                ("a body", onDisk, Request(.post, "uploads/tus", body: .data(Data("x".utf8), contentType: "text/plain")), file),
                ("a missing file", onDisk, Request(.post, "uploads/tus"), directory.url.appendingPathComponent("none")),
                ("a folder", onDisk, Request(.post, "uploads/tus"), directory.url),
                ("a store in memory", inMemory, Request(.post, "uploads/tus"), file),
            ]
            for (name, outbox, request, file) in cases {
                let error = await #expect(throws: CourierError.self, "\(name)") { try await outbox.enqueue(upload: request, from: file) }
                #expect(error?.kind == .invalidRequest, "\(name): \(String(describing: error))")
                #expect(try await outbox.entries().isEmpty, "\(name)")
            }
        }
    }
}
