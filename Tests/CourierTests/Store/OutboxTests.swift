import Courier
import CourierDemo
import CourierProbes
import CourierStore
import Foundation
import GRDB
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The outbox against the real sample server (which honours `Idempotency-Key`): writes made while
/// the server is away reach it once, in order per scope; a lost answer does not apply a write
/// twice; a refusal becomes a dead letter; a retryable failure holds its scope only.
@Suite struct OutboxTests {
    static func put(_ name: String, _ text: String) -> Request<Data> {
        Request<Data>(.put, "documents/\(name)", body: .data(Data(text.utf8), contentType: "text/plain"))
    }

    /// The stored document's body and version (how many writes the server applied).
    static func document(_ name: String, on server: ImageStoreServer) async throws -> (body: String, version: Int) {
        let client = server.client(URLSessionTransport())
        let body = try await client.send(Request<String>(.get, "documents/\(name)", serializer: .string)).value
        let list = try await client.send(Request<JSONValue>(.get, "documents")).value["documents"]?.arrayValue ?? []
        let item = list.first { (item: JSONValue) -> Bool in item["name"]?.stringValue == name }
        let version: Int? = item?["version"]?.stringValue.flatMap { Int($0) }
        return (body, version ?? 0)
    }

    /// A server started and stopped, its port held: its URL refuses connections (and no other
    /// test's server can take the port) until ``returning(_:)`` starts it again, on the same port
    /// and database file.
    struct AwayServer {
        let baseURL: URL
        /// The stopped server, which holds the port.
        private let away: ImageStoreServer
        /// The configuration of its return.
        private let back: ServerConfiguration

        init(in directory: TemporaryDirectory) async throws {
            let database = directory.url.appendingPathComponent("server.sqlite").path
            away = try await ImageStoreServer.instrumented(.holdable(databasePath: database))
            try await away.stopHoldingPort()
            baseURL = away.baseURL
            back = ServerConfiguration(port: away.port, databasePath: database)
        }

        /// Starts the server again on its port and database for `body`, and stops it after.
        func returning<T>(_ body: (ImageStoreServer) async throws -> T) async throws -> T {
            away.releasePort()
            return try await withServer(back, body)
        }
    }

    static func client(_ baseURL: URL) -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        return APIClient(configuration: configuration, transport: URLSessionTransport())
    }

    @Test func writesMadeWhileTheServerIsAwayReachItOnceInOrder() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let away = try await AwayServer(in: directory)
        let client = Self.client(away.baseURL)
        let store = try CourierStore(path: directory.url.appendingPathComponent("app.sqlite"))
        let outbox = try Outbox(store: store, client: client, baseDelay: .zero)
        for text in ["1", "2", "3"] { try await outbox.enqueue(Self.put("a", text), scope: "a") }
        try await outbox.enqueue(Self.put("b", "x"), scope: "b")

        let offline = try await outbox.flush()
        #expect(offline.sent == 0 && offline.deferred == 2 && offline.remaining == 4)
        let waiting = try await outbox.entries()
        #expect(waiting.map(\.attempts) == [1, 0, 0, 1] && waiting.allSatisfy { $0.state == .pending })
        #expect(waiting.first?.lastError?.isEmpty == false)
        #expect(Set(waiting.map(\.idempotencyKey)).count == 4)

        try await away.returning { server in
            let back = try await outbox.flush()
            #expect(back.sent == 4 && back.remaining == 0 && back.deadLettered == 0)
            #expect(try await Self.document("a", on: server) == ("3", 3))
            #expect(try await Self.document("b", on: server) == ("x", 1))
        }
    }

    @Test func aWriteWhoseAnswerWasLostIsAppliedOnce() async throws {
        try await withServer { server in
            let client = Self.client(server.baseURL)
            let store = try CourierStore.inMemory()
            let entry = try await Outbox(store: store, client: client).enqueue(Self.put("c", "once")).entry
            // The server took the write, but the app was killed before its answer arrived.
            _ = try await client.send(Self.put("c", "once").header("Idempotency-Key", "\"\(entry.idempotencyKey)\""))
            try await store.database.write { db in try db.execute(sql: "UPDATE courier_outbox SET state = 'inFlight'") }
            let reopened = try Outbox(store: store, client: client)
            #expect(try await reopened.entries().map(\.state) == [.pending])
            #expect(try await reopened.flush().sent == 1)
            #expect(try await Self.document("c", on: server) == ("once", 1))
        }
    }

    @Test func aRefusedWriteBecomesADeadLetterAndItsScopeGoesOn() async throws {
        try await withServer { server in
            let outbox = try Outbox(store: try CourierStore.inMemory(), client: Self.client(server.baseURL))
            try await outbox.enqueue(Request<Data>(.post, "auth", body: ["email": "not an address", "password": "x"]), scope: "s")
            try await outbox.enqueue(Self.put("d", "after"), scope: "s")
            let flush = try await outbox.flush()
            #expect(flush.deadLettered == 1 && flush.sent == 1 && flush.remaining == 0)
            let letters = try await outbox.deadLetters()
            let letter = try #require(letters.first)
            #expect(letters.count == 1 && letter.statusCode == 422 && letter.method == .post && letter.url.path == "/auth")
            #expect(letter.validationErrors?.fields["email"]?.isEmpty == false && !letter.body.isEmpty)
            #expect(try await Self.document("d", on: server) == ("after", 1))
            try await outbox.removeDeadLetter(letter.id)
            #expect(try await outbox.deadLetters().isEmpty)
        }
    }

    @Test func aRetryableFailureHoldsItsScopeButNotTheOthers() async throws {
        try await withServer { server in
            let outbox = try Outbox(store: try CourierStore.inMemory(), client: Self.client(server.baseURL), baseDelay: .zero)
            try await outbox.enqueue(Request<Data>(.post, "flaky/outbox", query: ["failures": 2, "status": 503], body: ["n": 1]), scope: "f")
            try await outbox.enqueue(Self.put("e", "behind"), scope: "f")
            try await outbox.enqueue(Self.put("g", "free"), scope: "g")
            let first = try await outbox.flush()
            #expect(first.sent == 1 && first.deferred == 1 && first.remaining == 2)
            #expect(try await Self.document("g", on: server) == ("free", 1))
            #expect(try await outbox.flush().deferred == 1)
            let third = try await outbox.flush()
            #expect(third.sent == 2 && third.remaining == 0)
            #expect(server.flakyAttempts("outbox") == 3)
            #expect(try await Self.document("e", on: server) == ("behind", 1))
        }
    }

    @Test func theOutboxKeepsWritesWithoutCredentialsAndRefusesReads() async throws {
        try await withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL, authenticationHeaders: ["access-token", "client", "uid"])
            configuration.cache = nil
            configuration.credentialStore = CredentialStore.inMemory()
            let client = APIClient(configuration: configuration, transport: URLSessionTransport())
            _ = try await client.send(Request<Data>(.post, "auth/sign_in", body: ["email": "demo@example.com", "password": "password"]))
            let store = try CourierStore.inMemory()
            let outbox = try Outbox(store: store, client: client)
            try await outbox.enqueue(Self.put("h", "signed"))
            let stored = try await store.database.read { db in try Data.fetchOne(db, sql: "SELECT headers FROM courier_outbox") } ?? Data()
            #expect(!String(decoding: stored, as: UTF8.self).contains("access-token"))
            #expect(try await outbox.flush().sent == 1)

            let read = await #expect(throws: CourierError.self) { try await outbox.enqueue(Request<Data>(.get, "documents")) }
            #expect(read?.kind == .invalidRequest)
            let negative = #expect(throws: CourierError.self) { try Outbox(store: store, client: client, baseDelay: .seconds(-1)) }
            #expect(negative?.kind == .invalidRequest)
        }
    }

    @Test func theReadmeExampleRenamesThroughTheOutbox() async throws {
        try await withServer { server in
            let client = Self.client(server.baseURL)
            var upload = Request<JSONValue>(.post, "images", body: .multipart([.data("image", ImageStoreTests.png(), fileName: "a.png")]))
            upload.suppressErrorAlert = true
            let id = try #require(try await client.send(upload).value["id"]?.intValue)
            let flush = try await renameWhenPossible(try Outbox(store: try CourierStore.inMemory(), client: client), imageID: id, title: "Dusk")
            #expect(flush.sent == 1 && flush.remaining == 0)
            let image = try await client.send(Request<JSONValue>(.get, "images/\(id)")).value
            #expect(image["title"]?.stringValue == "Dusk")
        }
    }

    /// A writer process enqueues and sends writes (each with an optimistic row) while it is killed
    /// at random moments, 200 times; a last run finishes. The server then holds every write once,
    /// in order per scope, the store holds every write's row and no other, and the outbox and its
    /// dead letters are empty.
    @Test func writesSurviveKillsAndReachTheServerOnceInOrder() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("app.sqlite")
        let (writes, scopes) = (250, 4)
        try await withServer { server in
            let arguments = ["outbox-writer", "--path", path.path, "--url", server.baseURL.absoluteString, "--writes", "\(writes)", "--scopes", "\(scopes)"]
            var kills = 0
            for _ in 0..<200 where try await killWriter(arguments, within: .milliseconds(200)) { kills += 1 }
            let last = try await ChildProcess.run(helper: arguments, within: .seconds(120))
            #expect(last.succeeded && last.output.contains("done"), "\(last)")
            let client = Self.client(server.baseURL)
            for scope in 0..<scopes {
                let lines = try await client.send(Request<JSONValue>(.get, "logs/log-\(scope)")).value["lines"]?.arrayValue ?? []
                #expect(lines.compactMap(\.stringValue) == (0..<writes).map(String.init), "scope \(scope)")
            }
            let store = try CourierStore(path: path)
            let outbox = try Outbox(store: store, client: client)
            #expect(try await outbox.entries().isEmpty)
            #expect(try await outbox.deadLetters().isEmpty)
            // Every write kept made its optimistic row in the same transaction: no row without its
            // write, no write without its row.
            let rows = Set(try await store.models(OutboxCrashWriter.Line.self).map(\.uid))
            #expect(rows == Set((0..<scopes).flatMap { scope in (0..<writes).map { "log-\(scope)/\($0)" } }))
            print("outbox crash loop: \(kills) of 200 runs killed while running; \(writes * scopes) writes")
            #expect(kills >= 10, "too few kills landed while the writer ran")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func sendAtOnceSendsOrKeepsAndTheQueueCanBeWatched() async throws {
        try await withServer { server in
            let outbox = try Outbox(store: try CourierStore.inMemory(), client: Self.client(server.baseURL))
            var watched = outbox.observe().makeAsyncIterator()
            #expect(try await watched.next()?.isEmpty == true)
            let sent = try await outbox.enqueue(Self.put("i", "now"), scope: "i", policy: .sendAtOnce)
            #expect(sent.outcome == .sent)
            #expect(try await Self.document("i", on: server) == ("now", 1))
            let refused = try await outbox.enqueue(Request<Data>(.post, "auth", body: ["email": "nope", "password": "x"]), policy: .sendAtOnce)
            #expect(refused.outcome == .deadLettered)
            let queued = try await outbox.enqueue(Self.put("j", "later"), scope: "j")
            #expect(queued.outcome == .queued && queued.entry.state == .pending && queued.entry.attempts == 0)
            // The observation gets to the queue as it is now: the one kept write.
            var seen: [OutboxEntry]?
            repeat { seen = try await watched.next() } while seen?.map(\.id) != [queued.entry.id]
            #expect(seen?.first?.url.path == "/documents/j")
            var letters = outbox.observeDeadLetters().makeAsyncIterator()
            #expect(try await letters.next()?.map(\.id) == [refused.entry.id])
        }
    }

    @Test func aFullDiskFailsTheEnqueueAndKeepsNothingHalfWritten() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let store = try CourierStore(path: directory.url.appendingPathComponent("app.sqlite"))
        let outbox = try Outbox(store: store, client: Self.client(URL(string: "http://127.0.0.1:9")!))
        try await outbox.enqueue(Self.put("k", "small"))
        try await store.database.write { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let large = Request<Data>(.put, "documents/k", body: .data(Data(repeating: 7, count: 1 << 20), contentType: "application/octet-stream"))
        let full = await #expect(throws: CourierError.self) { try await outbox.enqueue(large) }
        #expect(full?.kind == .store && full?.message.contains("was not kept") == true, "\(String(describing: full))")
        #expect(try await outbox.entries().map(\.url.path) == ["/documents/k"])
    }

    /// The path monitor's trigger (Apple platforms) fires when a path turns usable, once, and
    /// again only after it was lost.
    @Test func aPathComesBackOnceEachTimeItTurnsUsable() {
        var recovery = PathRecovery()
        let seen = [true, true, false, false, true, true, false, true].map { recovery.update(usable: $0) }
        #expect(seen == [true, false, false, false, true, false, false, true])
    }

    /// Started, the outbox sends by itself: it retries while the server is away (its backoff) and
    /// sends everything once the server is back, with no flush called.
    @Test(.timeLimit(.minutes(5)))
    func aStartedOutboxSendsByItselfWhenTheServerComesBack() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let away = try await AwayServer(in: directory)
        let outbox = try Outbox(
            store: try CourierStore.inMemory(), client: Self.client(away.baseURL), baseDelay: .milliseconds(20), maximumDelay: .milliseconds(200))
        for text in ["1", "2"] { try await outbox.enqueue(Self.put("m", text), scope: "m") }
        var watched = outbox.observe().makeAsyncIterator()
        outbox.start()
        defer { outbox.stop() }
        // Two failed attempts while the server is away: the loop retries on its own.
        while let entries = try await watched.next(), (entries.first?.attempts ?? 0) < 2 {}
        try await away.returning { server in
            try await outbox.enqueue(Self.put("m", "3"), scope: "m")
            while let entries = try await watched.next(), !entries.isEmpty {}
            #expect(try await Self.document("m", on: server) == ("3", 3))
        }
    }

    /// A damaged row (a column of the wrong type, as a file edited by hand could hold) is left
    /// out of what the outbox shows, never a crash, and becomes a dead letter when its turn comes.
    @Test func aDamagedRowIsLeftOutNotACrash() async throws {
        let store = try CourierStore.inMemory()
        let outbox = try Outbox(store: store, client: Self.client(URL(string: "http://127.0.0.1:9")!))
        try await outbox.enqueue(Self.put("n", "fine"))
        try await store.database.write { db in
            try db.execute(sql: """
                INSERT INTO courier_outbox (scope, method, url, headers, idempotencyKey, state, attempts, enqueuedAt)
                VALUES ('x', 'PUT', 'http://127.0.0.1:9/documents/x', x'5b5d', 'k-damaged', 'pending', 'many', 'not a date')
                """)
            try db.execute(sql: """
                INSERT INTO courier_dead_letter (id, scope, method, url, idempotencyKey, body, message, enqueuedAt, failedAt)
                VALUES (99, 'x', 'PUT', 'http://127.0.0.1:9/documents/x', 'k-d', x'', 'refused', 'not a date', 'nor this')
                """)
        }
        #expect(try await outbox.entries().map(\.url.path) == ["/documents/n"])
        #expect(try await outbox.deadLetters().isEmpty)
        // A flush does not let the damaged row hold its scope: it becomes a dead letter that says so.
        let flush = try await outbox.flush()
        #expect(flush.deadLettered == 1 && flush.deferred == 1)
        let letters = try await outbox.deadLetters()
        #expect(letters.map(\.url.path) == ["/documents/x"] && letters.first?.message.contains("could not be read") == true)
    }
}
