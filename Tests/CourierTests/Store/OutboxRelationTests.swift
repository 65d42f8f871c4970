import Courier
import CourierStore
import Foundation
import GRDB
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The outbox's relations to other things, against the real sample server: entries that depend on
/// entries of another scope, 412 conflicts and the app's resolver, optimistic store changes undone
/// on refusal, and the client's answers as a trigger.
@Suite struct OutboxRelationTests {
    typealias Image = StoreFixtures.Image
    typealias User = StoreFixtures.User
    typealias Pizza = StoreFixtures.Pizza

    /// Uploads an image titled `title`; returns its id and the ETag of its metadata.
    static func image(_ title: String, on client: APIClient) async throws -> (id: Int, etag: String) {
        var upload = Request<JSONValue>(.post, "images", body: .multipart([.data("image", StoreFixtures.png, fileName: "a.png"), .text("title", title)]))
        upload.suppressErrorAlert = true
        let id = try #require(try await client.send(upload).value["id"]?.intValue)
        let etag = try #require(try await client.send(Request<Data>(.get, "images/\(id)")).headers["ETag"])
        return (id, etag)
    }

    static func rename(_ id: Int, to title: String, ifMatch etag: String? = nil) -> Request<Data> {
        var request = Request<Data>(.patch, "images/\(id)", body: ["title": .string(title)])
        if let etag { request.headers["If-Match"] = etag }
        return request
    }

    static func title(of id: Int, on client: APIClient) async throws -> String? {
        try await client.send(Request<JSONValue>(.get, "images/\(id)")).value["title"]?.stringValue
    }

    @Test func anEntryWaitsForItsDependencyInAnotherScopeAndFollowsItsRefusal() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let outbox = try Outbox(store: try CourierStore.inMemory(), client: client, baseDelay: .zero)
            // Scope "a" fails once (503), then goes; "b" depends on it and must not overtake it.
            let first = try await outbox.enqueue(
                Request<Data>(.post, "flaky/dependency", query: ["failures": 1, "status": 503], body: ["n": 1]), scope: "a")
            let second = try await outbox.enqueue(OutboxTests.put("dep", "after a"), scope: "b", after: first.entry)
            #expect(second.entry.dependsOn == first.entry.id)
            let waiting = try await outbox.flush()
            #expect(waiting.sent == 0 && waiting.deferred == 1 && waiting.remaining == 2)
            // In one flush: "a" goes, and "b" follows in the next round.
            let both = try await outbox.flush()
            #expect(both.sent == 2 && both.remaining == 0)
            #expect(try await OutboxTests.document("dep", on: server) == ("after a", 1))

            // A dependency the server refuses takes its dependents with it, never sending them.
            let refused = try await outbox.enqueue(Request<Data>(.post, "auth", body: ["email": "nope", "password": "x"]), scope: "c")
            try await outbox.enqueue(OutboxTests.put("dep", "never"), scope: "d", after: refused.entry)
            let flush = try await outbox.flush()
            #expect(flush.deadLettered == 2 && flush.sent == 0 && flush.remaining == 0)
            let letters = try await outbox.deadLetters()
            #expect(letters.map(\.statusCode) == [422, nil])
            #expect(letters.last?.message.contains("depended on write #\(refused.entry.id)") == true)
            #expect(try await OutboxTests.document("dep", on: server) == ("after a", 1))
        }
    }

    @Test func theServerRefusesAChangeMadeOnAnOldVersion() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let (id, etag) = try await Self.image("first", on: client)
            let renamed = try await client.send(Self.rename(id, to: "second", ifMatch: etag))
            let newTag = try #require(renamed.headers["ETag"])
            #expect(newTag != etag)
            #expect(try await client.send(Request<Data>(.get, "images/\(id)")).headers["ETag"] == newTag)
            let stale = await #expect(throws: CourierError.self) { try await client.send(Self.rename(id, to: "third", ifMatch: etag)) }
            #expect(stale?.statusCode == 412 && stale?.headers?["ETag"] == newTag)
            #expect(try await Self.title(of: id, on: client) == "second")
            let gone = await #expect(throws: CourierError.self) {
                try await client.send(Request<Data>(.delete, "images/\(id)").header("If-Match", etag))
            }
            #expect(gone?.statusCode == 412)
            _ = try await client.send(Request<Data>(.delete, "images/\(id)").header("If-Match", "*"))
        }
    }

    @Test func aConflictGoesToTheResolverWhichCanReplaceDiscardOrKeepIt() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let store = try CourierStore.inMemory()
            // The resolver makes the change again on the current version, once per image, then gives up.
            let outbox = try Outbox(store: store, client: client) { conflict in
                guard let tag = conflict.currentETag, conflict.entry.url.path.hasSuffix("/1") else { return .discard }
                return .replace(with: Self.rename(1, to: "mine, on theirs", ifMatch: tag))
            }
            let (one, oneTag) = try await Self.image("one", on: client)
            let (two, twoTag) = try await Self.image("two", on: client)
            #expect(one == 1)
            try await store.import(Image.self, from: try await client.send(Request<Data>(.get, "images/\(two)")).data)
            try await outbox.enqueue(Self.rename(one, to: "mine", ifMatch: oneTag), scope: "1")
            try await outbox.enqueue(
                Self.rename(two, to: "mine", ifMatch: twoTag), scope: "2",
                applying: [.save(Image(uid: two, title: "mine", mimeType: "image/png", size: 40))])
            #expect(try await store.model(Image.self, uid: two)?.title == "mine")
            // Someone else renames both first.
            for id in [one, two] { _ = try await client.send(Self.rename(id, to: "theirs")) }

            let flush = try await outbox.flush()
            #expect(flush.sent == 1 && flush.discarded == 1 && flush.deadLettered == 0 && flush.remaining == 0)
            #expect(try await Self.title(of: one, on: client) == "mine, on theirs")
            #expect(try await Self.title(of: two, on: client) == "theirs")
            // The discarded write's optimistic change is undone: the store shows the row it had.
            #expect(try await store.model(Image.self, uid: two)?.title == "two")

            // The discard is kept for a receipt (another outbox on the file may await it); the
            // receipt of a discarded `sendAtOnce` reads its own and leaves the earlier one.
            #expect(try await outbox.keptOutcomeCount() == 1)
            let receipt = try await outbox.enqueue(Self.rename(two, to: "stale", ifMatch: twoTag), policy: .sendAtOnce)
            #expect(receipt.outcome == .discarded)
            #expect(try await outbox.keptOutcomeCount() == 1)

            // Without a resolver, a conflict is a dead letter with the server's answer.
            let plain = try Outbox(store: store, client: client)
            try await plain.enqueue(Self.rename(two, to: "stale", ifMatch: twoTag))
            #expect(try await plain.flush().deadLettered == 1)
            #expect(try await plain.deadLetters().first?.statusCode == 412)
        }
    }

    /// How an entry left the outbox is written in the move's own transaction, so a receipt tells
    /// it whichever outbox on the file made the move, and after the app removed the dead letter.
    @Test func aReceiptTellsHowAnEntryLeftWhicheverOutboxMovedIt() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let store = try CourierStore.inMemory()
            let refusing = try Outbox(store: store, client: client)
            let discarding = try Outbox(store: store, client: client) { _ in .discard }
            let (id, tag) = try await Self.image("one", on: client)
            _ = try await client.send(Self.rename(id, to: "theirs"))

            // Enqueued in one outbox, discarded by the other's flush.
            let discarded = try await refusing.enqueue(Self.rename(id, to: "a", ifMatch: tag))
            #expect(try await refusing.receiptOutcome(of: discarded.entry) == .queued)
            #expect(try await discarding.flush().discarded == 1)
            #expect(try await refusing.receiptOutcome(of: discarded.entry) == .discarded)

            // Dead-lettered by the other's flush, and the dead letter removed before the receipt.
            let buried = try await discarding.enqueue(Self.rename(id, to: "b", ifMatch: tag))
            #expect(try await refusing.flush().deadLettered == 1)
            try await refusing.removeDeadLetter(buried.entry.id)
            #expect(try await discarding.receiptOutcome(of: buried.entry) == .deadLettered)

            // A receipt reads its outcome once; a sent entry keeps none.
            #expect(try await refusing.keptOutcomeCount() == 0)
            let sent = try await refusing.enqueue(Self.rename(id, to: "c"))
            #expect(try await discarding.flush().sent == 1)
            #expect(try await refusing.receiptOutcome(of: sent.entry) == .sent)
            #expect(try await refusing.keptOutcomeCount() == 0)
        }
    }

    /// A saved model's nested `Identified` models are rows of their own: a refused write puts
    /// them back too (a changed one as it was, a new one removed), not only the model's row.
    @Test func theUndoOfASaveRestoresTheRowsOfItsNestedModels() async throws {
        try await withServer { server in
            let outbox = try Outbox(store: try CourierStore.inMemory(), client: OutboxTests.client(server.baseURL))
            let store = outbox.store
            try await store.import(User.self, from: Data(#"[{"id":1,"user_name":"ana","is_first_login":false,"favorite_pizza":{"id":5,"name":"Catuperoni"}}]"#.utf8))
            let edited = User(uid: 1, userName: "ana", isFirstLogin: false, favoritePizza: Pizza(uid: 5, name: "Margherita"), orderedPizzas: [Pizza(uid: 11, name: "Nova")])
            let added = User(uid: 7, userName: "bia", isFirstLogin: true, favoritePizza: Pizza(uid: 12, name: "Fresca"), orderedPizzas: nil)
            // Refused by the server (no image 999): a dead letter, whose changes are undone.
            try await outbox.enqueue(Self.rename(999, to: "ghost"), applying: [.save(edited), .save(added)])
            #expect(try await store.model(Pizza.self, uid: 5)?.name == "Margherita")
            #expect(try await store.models(Pizza.self, .all.order(Column("uid"))).map(\.uid) == [5, 11, 12])
            #expect(try await outbox.flush().deadLettered == 1)
            #expect(try await store.model(User.self, uid: 1)?.favoritePizza?.name == "Catuperoni")
            #expect(try await store.model(User.self, uid: 7) == nil)
            #expect(try await store.models(Pizza.self, .all.order(Column("uid"))).map { "\($0.uid) \($0.name)" } == ["5 Catuperoni"])
        }
    }

    @Test func optimisticChangesAreUndoneWhenTheWriteIsRefusedUnlessTheRowChangedSince() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let store = try CourierStore.inMemory()
            let outbox = try Outbox(store: store, client: client)
            let (id, _) = try await Self.image("kept", on: client)
            try await store.import(Image.self, from: try await client.send(Request<Data>(.get, "images/\(id)")).data)
            let before = try #require(try await store.model(Image.self, uid: id))

            // A rename the server will refuse (an id it does not have), shown at once, and a
            // delete of the stored image, shown at once, both refused: each is undone.
            try await outbox.enqueue(
                Self.rename(999, to: "ghost"), scope: "x", applying: [.save(Image(uid: 999, title: "ghost", mimeType: "image/png", size: 1))])
            try await outbox.enqueue(Request<Data>(.delete, "images/999"), scope: "y", applying: [.delete(Image.self, uid: id)])
            #expect(try await store.model(Image.self, uid: 999)?.title == "ghost")
            #expect(try await store.model(Image.self, uid: id) == nil)
            #expect(try await outbox.flush().deadLettered == 2)
            #expect(try await store.model(Image.self, uid: 999) == nil)
            let restored = try #require(try await store.model(Image.self, uid: id))
            #expect(restored.title == before.title && restored.size == before.size)

            // A row the server's data replaced meanwhile is left as it is.
            try await outbox.enqueue(
                Self.rename(998, to: "ghost"), applying: [.save(Image(uid: id, title: "optimistic", mimeType: "image/png", size: 1))])
            _ = try await client.send(Self.rename(id, to: "from the server"))
            try await store.import(Image.self, from: try await client.send(Request<Data>(.get, "images/\(id)")).data)
            #expect(try await outbox.flush().deadLettered == 1)
            #expect(try await store.model(Image.self, uid: id)?.title == "from the server")

            // A store that cannot be written (read-only) keeps nothing: no entry, no change.
            let count = try await outbox.entries().count
            try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 1") }
            let refused = await #expect(throws: CourierError.self) {
                try await outbox.enqueue(Self.rename(id, to: "read-only"), applying: [.delete(Image.self, uid: id)])
            }
            try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 0") }
            #expect(refused?.kind == .store && refused?.message.contains("was not kept") == true, "\(String(describing: refused))")
            #expect(try await outbox.entries().count == count)
            #expect(try await store.model(Image.self, uid: id) != nil)
        }
    }

    /// Started, an outbox whose writes wait (a long backoff) sends them as soon as the client's
    /// next request to the same origin is answered, not after the backoff.
    @Test(.timeLimit(.minutes(5)))
    func theClientsNextAnsweredRequestSendsWritesWaitingForThatServer() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let away = try await OutboxTests.AwayServer(in: directory)
        let client = OutboxTests.client(away.baseURL)
        let outbox = try Outbox(store: try CourierStore.inMemory(), client: client, baseDelay: .seconds(600), maximumDelay: .seconds(600))
        var watched = outbox.observe().makeAsyncIterator()
        outbox.start()
        defer { outbox.stop() }
        try await outbox.enqueue(OutboxTests.put("t", "1"), scope: "t")
        while let entries = try await watched.next(), entries.first?.nextAttempt == nil {}
        try await away.returning { server in
            // Any answered request to the origin will do; the write was due in ten minutes.
            _ = try await client.send(Request<Data>(.get, "documents"))
            while let entries = try await watched.next(), !entries.isEmpty {}
            #expect(try await OutboxTests.document("t", on: server) == ("1", 1))
        }
    }

    /// `retryWaitingNow()` (what the network path monitor calls) makes due the entries whose
    /// server did not answer, not those the server told to wait.
    @Test func retryWaitingNowMakesUnansweredEntriesDue() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let away = try await OutboxTests.AwayServer(in: directory)
        let outbox = try Outbox(store: try CourierStore.inMemory(), client: OutboxTests.client(away.baseURL), baseDelay: .seconds(600))
        try await outbox.enqueue(OutboxTests.put("r", "1"), scope: "r")
        #expect(try await outbox.flush().deferred == 1)
        try await away.returning { server in
            try await outbox.enqueue(Request<Data>(.post, "flaky/later", query: ["failures": 1, "status": 503], body: ["n": 1]), scope: "s")
            #expect(try await outbox.flush().deferred == 1)
            #expect(try await outbox.flush().sent == 0)
            outbox.retryWaitingNow()
            let flush = try await outbox.flush()
            #expect(flush.sent == 1 && flush.remaining == 1)
            #expect(try await OutboxTests.document("r", on: server) == ("1", 1))
        }
    }

    /// A file upload is copied beside the store when kept: the app's file may change or go before
    /// the write is sent, and the server still gets the bytes of the moment of the enqueue. The
    /// copy goes once the server has the write; a copy no entry names (a crash) goes when the
    /// outbox opens; erasing the store removes them all.
    @Test func uploadedFilesAreCopiedBesideTheStoreUntilSent() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let image = directory.url.appendingPathComponent("photo.png")
        let bytes = ImageStoreTests.png(300_000)
        try bytes.write(to: image)
        let storePath = directory.url.appendingPathComponent("app.sqlite")
        let bodies = directory.url.appendingPathComponent("app.sqlite.outbox")
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let store = try CourierStore(path: storePath)
            let outbox = try Outbox(store: store, client: client)
            let upload = Request<Data>(.post, "images", body: .multipart([.file("image", image), .text("title", "offline")]))
            let entry = try await outbox.enqueue(upload).entry
            #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path) == [entry.idempotencyKey])
            let kept = try store.database.read { db in try Row.fetchOne(db, sql: "SELECT body, bodyFile FROM courier_outbox") }
            #expect(kept?["body"] as Data? == nil && kept?["bodyFile"] as String? == entry.idempotencyKey)
            try Data("changed since".utf8).write(to: image)

            #expect(try await outbox.flush().sent == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path).isEmpty)
            let list = try await client.send(Request<JSONValue>(.get, "images")).value["images"]?.arrayValue ?? []
            let id = try #require(list.first?["id"]?.intValue)
            #expect(list.first?["title"]?.stringValue == "offline")
            #expect(try await client.send(Request<Data>(.get, "images/\(id)/data")).data == bytes)

            // A copy no entry names is swept when an outbox opens; one an entry names stays.
            try Data("orphan".utf8).write(to: bodies.appendingPathComponent("left-by-a-crash"))
            try bytes.write(to: image)
            let waiting = try await outbox.enqueue(upload).entry
            _ = try Outbox(store: store, client: client)
            #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path) == [waiting.idempotencyKey])
            // A copy that went missing makes its entry a dead letter that says so, not a crash.
            try FileManager.default.removeItem(at: bodies.appendingPathComponent(waiting.idempotencyKey))
            #expect(try await outbox.flush().deadLettered == 1)
            #expect(try await outbox.deadLetters().first?.message.contains("gone") == true)

            try await outbox.enqueue(upload)
            try store.erase()
            #expect(!FileManager.default.fileExists(atPath: bodies.path))
            #expect(try await outbox.entries().isEmpty)
        }
    }

    /// The README's outbox: an optimistic rename on a stale version is made again by the resolver
    /// on the current one, and the started outbox sends it by itself.
    @Test(.timeLimit(.minutes(5)))
    func theReadmeExampleResolvesAConflictWithTheOptimisticTitle() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let store = try CourierStore.inMemory()
            let (id, etag) = try await Self.image("original", on: client)
            try await store.import(Photo.self, from: try await client.send(Request<Data>(.get, "images/\(id)")).data)
            let photo = try #require(try await store.model(Photo.self, uid: id))
            _ = try await client.send(Self.rename(id, to: "someone else's"))
            let outbox = try startOutbox(store: store, client: client)
            defer { outbox.stop() }
            var watched = outbox.observe().makeAsyncIterator()
            try await CourierTests.rename(photo, to: "mine", etag: etag, in: outbox)
            #expect(try await store.model(Photo.self, uid: id)?.title == "mine")
            while let entries = try await watched.next(), !entries.isEmpty {}
            #expect(try await Self.title(of: id, on: client) == "mine")
            #expect(try await outbox.deadLetters().isEmpty)
        }
    }

    /// A logout that erases the user's store erases the user's outbox with it: entries, dead
    /// letters, optimistic rows and body files.
    @Test func aLogoutErasesTheUsersOutbox() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let client = OutboxTests.client(URL(string: "http://127.0.0.1:9")!)
        let store = try CourierStore.forUser(of: client, in: directory.url)
        let outbox = try Outbox(store: store, client: client)
        let file = directory.url.appendingPathComponent("photo.png")
        try ImageStoreTests.png().write(to: file)
        try await outbox.enqueue(
            Request<Data>(.post, "images", body: .multipart([.file("image", file)])), applying: [.save(Image(uid: 1, title: "mine", mimeType: "image/png", size: 1))])
        try await store.database.write { db in
            try db.execute(sql: """
                INSERT INTO courier_dead_letter (id, scope, method, url, idempotencyKey, body, message, enqueuedAt, failedAt)
                VALUES (99, '', 'PUT', 'http://127.0.0.1:9/documents/x', 'k', x'', 'refused', 0, 0)
                """)
        }
        let bodies = try #require(store.path).path + ".outbox"
        #expect(try FileManager.default.contentsOfDirectory(atPath: bodies).count == 1)
        try client.logout()
        #expect(try await outbox.entries().isEmpty)
        #expect(try await outbox.deadLetters().isEmpty)
        #expect(try await store.models(Image.self).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: bodies))
    }

    /// One loop per store: a second outbox of the same file does not start another until the
    /// first stops.
    @Test func oneStoreRunsOneLoop() throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let client = OutboxTests.client(URL(string: "http://127.0.0.1:9")!)
        let path = directory.url.appendingPathComponent("app.sqlite")
        let first = try Outbox(store: try CourierStore(path: path), client: client)
        let second = try Outbox(store: try CourierStore(path: path), client: client)
        first.start()
        second.start()
        #expect(first.isRunning && !second.isRunning)
        first.stop()
        second.start()
        #expect(!first.isRunning && second.isRunning)
        second.stop()
        #expect(!second.isRunning)
    }

    /// A resolver whose replacement conflicts again is not asked again in the same flush: the
    /// entry waits its backoff, so a stale resolver cannot loop against the server.
    @Test(.timeLimit(.minutes(5)))
    func aReplacementThatConflictsAgainWaits() async throws {
        try await withServer { server in
            let client = OutboxTests.client(server.baseURL)
            let asked = Locked(0)
            let outbox = try Outbox(store: try CourierStore.inMemory(), client: client, baseDelay: .seconds(600)) { conflict in
                asked.withLock { $0 += 1 }
                return .replace(with: Self.rename(1, to: "stale again", ifMatch: "\"not-the-current-tag\""))
            }
            let (id, tag) = try await Self.image("one", on: client)
            _ = try await client.send(Self.rename(id, to: "theirs"))
            try await outbox.enqueue(Self.rename(id, to: "mine", ifMatch: tag))
            let flush = try await outbox.flush()
            #expect(flush.deferred == 1 && flush.sent == 0 && flush.remaining == 1)
            #expect(asked.withLock { $0 } == 1)
            #expect(try await outbox.entries().first?.nextAttempt != nil)
            #expect(try await Self.title(of: id, on: client) == "theirs")
        }
    }
}
