import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// When recordings reach the file: a recording is written a moment later, with the others made
/// meanwhile, and at the latest at `flush()`, at the end of `use`, when a cassette is opened and
/// when the process exits; a file that cannot be written fails what comes after.
@Suite struct CassetteWritingTests {
    /// The entries of the HAR file at `file`, read as plain JSON.
    static func entries(in file: URL) throws -> [[String: Any]] {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        return (document?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
    }

    @Test func recordingsAreInTheFileAfterFlushAfterUseAndWhenACassetteOpens() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("written.har")
        try await withServer { server in
            let cassette = try Cassette(file: file, mode: .all)
            let given = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette))
            for index in 0..<3 { _ = try await given.send(Request<Data>(.get, "echo", query: ["n": .int(index)])) }
            try cassette.flush()
            #expect(try Self.entries(in: file).count == 3)
            try cassette.flush()  // nothing new: the file stays as it is
            #expect(try Self.entries(in: file).count == 3)

            let current = server.client(RecordingTransport(wrapping: URLSessionTransport()))
            try await cassette.use {
                for index in 3..<5 { _ = try await current.send(Request<Data>(.get, "echo", query: ["n": .int(index)])) }
            }
            #expect(try Self.entries(in: file).count == 5)

            _ = try await given.send(Request<Data>(.get, "echo", query: ["n": 5]))
            let opened = try Cassette(file: file, mode: .none)
            #expect(opened.entryCount == 6)
            #expect(try Self.entries(in: file).map { $0["request"] as? [String: Any] }.compactMap { $0?["url"] as? String }
                == (0..<6).map { "\(server.baseURL.absoluteString)/echo?n=\($0)" })
        }
    }

    /// Recordings from parallel tasks, scheduled writes and flushes of the app's own interleave:
    /// the file stays one HAR document holding every exchange once.
    @Test func parallelRecordingsAndFlushesLeaveEveryEntryOnceInTheFile() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("parallel.har")
        let (tasks, each) = (8, 25)
        try await withServer { server in
            let cassette = try Cassette(file: file, mode: .all)
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette)) { $0.deduplicatesRequests = false }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<each {
                            _ = try await client.send(Request<Data>(.get, "echo", query: ["t": .int(task), "i": .int(index)]))
                            if index.isMultiple(of: 7) { try cassette.flush() }
                        }
                    }
                }
                try await group.waitForAll()
            }
            try cassette.flush()
        }
        let urls = try Self.entries(in: file).compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
        #expect(urls.count == tasks * each)
        #expect(Set(urls).count == tasks * each, "every exchange once")
        #expect(try Cassette(file: file, mode: .none).entryCount == tasks * each)
    }

    /// A cassette that records everything lets its entries go once they are written (a long
    /// recording does not hold every body), and a ReplayTransport gets nothing from it; one in
    /// mode newEpisodes keeps them to match against.
    @Test func aRecordingCassetteHoldsOnlyWhatIsNotWrittenYet() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("held.har")
        try await withServer { server in
            let cassette = try Cassette(file: file, mode: .all)
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette))
            for index in 0..<3 { _ = try await client.send(Request<Data>(.get, "echo", query: ["n": .int(index)])) }
            try cassette.flush()
            #expect(cassette.heldEntryCount == 0 && cassette.entryCount == 3)
            _ = try await client.send(Request<Data>(.get, "echo", query: ["n": 3]))
            try cassette.flush()
            #expect(cassette.heldEntryCount == 0 && cassette.entryCount == 4 && cassette.unusedEntryCount == 0)
            #expect(try Self.entries(in: file).count == 4)
            let replay = APIClient(baseURL: server.baseURL, transport: ReplayTransport(cassette: cassette))
            let miss = await #expect(throws: CourierError.self) { try await replay.send(Request<Data>(.get, "echo", query: ["n": 0])) }
            #expect(miss?.kind == .cassetteMiss && miss?.message.contains("is being recorded") == true, "\(miss?.message ?? "")")

            let more = try Cassette(file: file, mode: .newEpisodes)
            _ = try await server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: more)).send(Request<Data>(.get, "echo", query: ["n": 4]))
            try more.flush()
            #expect(more.heldEntryCount == 5 && more.entryCount == 5)
            #expect(try Self.entries(in: file).count == 5)
        }
    }

    @Test func aFileThatCannotBeWrittenFailsFlushUseAndTheRecordingsAfter() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        // The cassette's folder would be inside a file: it cannot be made.
        let blocker = directory.url.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let file = blocker.appendingPathComponent("cassette.har")
        try await withServer { server in
            let cassette = try Cassette(file: file, mode: .all)
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport()))
            let use = await #expect(throws: CourierError.self) {
                try await cassette.use { _ = try await client.send(Request<Data>(.get, "sample")) }
            }
            #expect(use?.kind == .cassetteInvalid)
            #expect(use?.message.contains("could not be written") == true && use?.message.contains(file.path) == true, "\(use?.message ?? "")")
            let flush = #expect(throws: CourierError.self) { try cassette.flush() }
            #expect(flush?.kind == .cassetteInvalid)
            let next = await #expect(throws: CourierError.self) {
                try await cassette.use { _ = try await client.send(Request<Data>(.get, "sample")) }
            }
            #expect(next?.kind == .cassetteInvalid)
            #expect(server.requestCount("GET", "/sample") == 2, "the exchanges happened; only their recording failed")
        }
    }

    @Test func recordingsNotYetWrittenReachTheFileWhenTheProcessExits() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("exit.har")
        try await withServer { server in
            let arguments = ["cassette-writer", "--file", file.path, "--url", server.baseURL.absoluteString, "--count", "4"]
            let outcome = try await ChildProcess.run(helper: arguments, within: .seconds(60))
            #expect(outcome.succeeded && outcome.output.contains("recorded 4"), "\(outcome)")
            #expect(try Self.entries(in: file).count == 4)
        }
    }
}
