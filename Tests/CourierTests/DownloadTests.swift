import BenchWorkloads
@testable import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Downloads to a file: streamed to disk, progress, replacement, failures that leave the
/// destination alone, cancellation that leaves no partial file.
@Suite struct DownloadTests {
    @Test(arguments: TransportKind.allCases)
    func aDownloadLandsInTheFileWithProgress(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("bytes.bin")
        try Data("old content".utf8).write(to: destination)
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let reports = Locked<[TransferProgress]>([])
                let request = Request<Data>(.get, "bytes/3000000").onDownloadProgress { progress in reports.withLock { $0.append(progress) } }
                let response = try await client.download(request, to: destination)
                #expect(response.value == destination && response.data.isEmpty && response.statusCode == 200)
                let contents = try Data(contentsOf: destination)
                #expect(contents.count == 3_000_000)
                #expect(contents.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
                let seen = reports.withLock { $0 }
                #expect(seen.count >= 2, "progress arrives as the bytes do, not only at the end")
                #expect(seen.last?.completed == 3_000_000 && seen.last?.total == 3_000_000)
                #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completed <= $1.completed })
                #expect(directory.files == ["bytes.bin"])
            }
        }
    }

    /// Every transfer with progress ends with one report of the whole body, delivered before
    /// `download` or `send` returns: 48 downloads and 48 sends of 102,400 bytes, 8 at a time.
    @Test(arguments: TransportKind.allCases)
    func theFinalProgressReportArrivesBeforeTheTransferReturns(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<96 {
                        if index >= 8 { try await group.next() }
                        group.addTask {
                            let reports = Locked<[TransferProgress]>([])
                            let request = Request<Data>(.get, "bytes/102400").onDownloadProgress { progress in reports.withLock { $0.append(progress) } }
                            let size: Int
                            if index.isMultiple(of: 2) {
                                let destination = directory.url.appendingPathComponent("download-\(index).bin")
                                _ = try await client.download(request, to: destination)
                                size = try Data(contentsOf: destination).count
                            } else {
                                size = try await client.send(request).data.count
                            }
                            let seen = reports.withLock { $0 }
                            let whole = TransferProgress(completed: 102_400, total: 102_400)
                            #expect(size == 102_400)
                            #expect(seen.last == whole, "\(index.isMultiple(of: 2) ? "download" : "send") \(index): \(seen.suffix(3))")
                            #expect(seen.filter(\.isFinished).count == 1, "\(index): one final report, not \(seen.filter(\.isFinished))")
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// A download that did not opt in to resuming across calls still resumes within its call: a
    /// connection that drops every 50,000 bytes continues the part with `Range` under the retry
    /// policy (whose count starts again with every attempt that added bytes), and the hidden
    /// folder that held the part is gone afterwards, as it is after a failure.
    @Test(arguments: TransportKind.allCases)
    func aDroppedDownloadResumesWithinItsCall(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("ranged.bin")
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) { $0.errorPresenter = nil }
                let url = "ranged/200000?drop_after=50000"
                var request = Request<Data>(.get, url)
                request.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))
                _ = try await client.download(request, to: destination)
                #expect(try Data(contentsOf: destination) == PatternBytes.make(200_000) { ImageStoreServer.rangedByte($0) })
                #expect(server.flakyAttempts("ranged/200000/bytes") == 200_000, "every byte sent once")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["ranged.bin"])

                request.retryPolicy = RetryPolicy.none
                await #expect(throws: CourierError.self) { try await client.download(request, to: destination) }
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["ranged.bin"])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aFailedDownloadLeavesTheDestinationAlone(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("image.png")
        try Data("keep me".utf8).write(to: destination)
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let error = await #expect(throws: CourierError.self) {
                    try await client.download(Request<Data>(.get, "images/42/data"), to: destination)
                }
                #expect(error?.classification == .notFound && error?.userMessage == "Image 42 was not found.")
                let kept = try Data(contentsOf: destination)
                #expect(kept == Data("keep me".utf8))
                #expect(directory.files == ["image.png"])
            }
        }
    }

    @Test(arguments: TransportKind.allCases, [false, true])
    func cancellingADownloadLeavesNoPartialFile(kind: TransportKind, observingProgress: Bool) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("large.bin")
        try Data("keep me".utf8).write(to: destination)
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                var request = Request<Data>(.get, "bytes/1000000000?chunked=true")
                if observingProgress { request = request.onDownloadProgress { _ in } }
                let task = Task { [request] in try await client.download(request, to: destination) }
                await server.waitForRequests("GET", "/bytes/{count}")
                task.cancel()
                let result = await task.result
                #expect(throws: CourierError.self) { try result.get() }
                #expect(directory.files == ["large.bin"])
                let kept = try Data(contentsOf: destination)
                #expect(kept == Data("keep me".utf8))
            }
        }
    }

    @Test(arguments: TransportKind.allCases, [false, true])
    func aDownloadSendsItsBody(kind: TransportKind, observingProgress: Bool) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("summary.json")
        let payload = PatternBytes.make(100_000) { UInt8($0 % 256) }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                var request = Request<Data>(.post, "uploads/raw", body: .data(payload, contentType: "application/octet-stream"))
                if observingProgress { request = request.onDownloadProgress { _ in } }
                _ = try await client.download(request, to: destination)
                struct Summary: Decodable { var size: Int; var sha256: String }
                let summary = try JSONDecoder().decode(Summary.self, from: Data(contentsOf: destination))
                #expect(summary.size == payload.count && summary.sha256 == UploadTests.sha256(payload))
                // The transport hands the body on as it arrives (bounded memory), not gathered whole.
                var wire = try client.transportRequest(for: request)
                wire.streamsBody = true
                let observer = observingProgress ? TransferObserver(download: { _ in }) : .none
                let direct = try await transport.send(wire, observer: observer)
                let live = try #require(direct.liveBody)
                #expect(direct.body.isEmpty)
                var received = Data()
                while let piece = try await live.next() { received += piece }
                #expect(try JSONDecoder().decode(Summary.self, from: received).size == payload.count)
            }
        }
    }
}
