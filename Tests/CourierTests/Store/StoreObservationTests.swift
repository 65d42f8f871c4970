import Courier
import CourierStore
import Foundation
import GRDB
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Observing a store, `.both` requests flowing into it, and per-user stores erased on logout.
@Suite struct StoreObservationTests {
    typealias User = StoreFixtures.User

    @Test func observationYieldsAtOnceThenOnlyAfterImportsThatChangeSomething() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let store = try CourierStore(path: directory.url.appendingPathComponent("users.sqlite"))
        var values = store.observe(User.self, .all.order(Column("uid"))).makeAsyncIterator()
        #expect(try await values.next()?.isEmpty == true)

        try await store.import(User.self, from: Data(StoreFixtures.users(1...2).utf8))
        #expect(try await values.next()?.map(\.userName) == ["user1", "user2"])

        // Nothing changes: no value. The next value seen is the one after the rename below, not a
        // repeat of the list above.
        let unchanged = try await store.import(User.self, from: Data(StoreFixtures.users(1...2).utf8))
        #expect(!unchanged.changedSomething)
        try await store.import(User.self, from: Data(StoreFixtures.users(1...2) { $0 == 1 ? "ana" : "user\($0)" }.utf8))
        #expect(try await values.next()?.map(\.userName) == ["ana", "user2"])

        try await store.import(User.self, from: Data(StoreFixtures.users([2]).utf8), missing: .delete)
        #expect(try await values.next()?.map(\.uid) == [2])
    }

    @Test func recordObservationFollowsImports() async throws {
        let store = try CourierStore.inMemory(configuration: StoreConfiguration(migrator: StoreFixtures.playerMigrator))
        var values = store.observe(StoreFixtures.Player.order(Column("id"))).makeAsyncIterator()
        #expect(try await values.next() == [])
        try await store.import(StoreFixtures.Player.self, from: Data(#"[{"id":1,"name":"Ana","score":1}]"#.utf8))
        #expect(try await values.next()?.map(\.name) == ["Ana"])
    }

    /// `.both`: the cached answer is imported, then the network's; the second time the network
    /// answers 304 and the store is not touched.
    @Test(arguments: TransportKind.allCases)
    func bothImportsTheCachedAnswerAndA304TouchesNothing(kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in try await kind.with { transport in
                let client = server.client(transport) { $0.cache = cache }
                try await StoreFixtures.put(#"{"users":\#(StoreFixtures.users(1...3))}"#, as: "users", on: client)
                let store = try CourierStore.inMemory()
                let request = Request<Data>(.get, "documents/users", cache: .both)
                let first = try await client.send(request, into: store, as: User.self, root: "users")
                #expect(first.inserted == 3)
                let times = try await store.importTimes("User")

                let second = try await client.send(request, into: store, as: User.self, root: "users")
                #expect(second.notModified && !second.changedSomething)
                #expect(server.notModifiedCount("GET", "/documents/{name}") == 1)
                #expect(try await store.importTimes("User") == times)

                // A changed document: the cached (old) answer, then the new one
                try await StoreFixtures.put(#"{"users":\#(StoreFixtures.users(1...4))}"#, as: "users", on: client)
                let third = try await client.send(request, into: store, as: User.self, root: "users")
                #expect(third.inserted == 1 && third.unchanged == 3)
            } }
        }
    }

    @Test func perUserStoresAreApartAndLogoutErasesTheUsersStore() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            let client = server.client(URLSessionTransport()) {
                $0.authenticationHeaders = AuthenticationTests.names
                $0.credentialStore = CredentialStore.inMemory()
            }
            let signedOut = try CourierStore.forUser(of: client, in: directory.url)
            #expect(signedOut.path?.lastPathComponent == "public.sqlite")
            try await signedOut.import(User.self, from: Data(StoreFixtures.users([100]).utf8))

            _ = try await AuthenticationTests.signIn(client)
            let store = try CourierStore.forUser(of: client, in: directory.url)
            #expect(store.path?.lastPathComponent.hasPrefix("user-") == true)
            try await StoreFixtures.put(#"{"users":\#(StoreFixtures.users(1...3))}"#, as: "mine", on: client)
            try await client.send(Request<Data>(.get, "documents/mine"), into: store, as: User.self, root: "users")
            #expect(try await store.count(User.self) == 3)
            #expect(try await signedOut.count(User.self) == 1)

            var values = store.observe(User.self).makeAsyncIterator()
            #expect(try await values.next()?.count == 3)
            try client.logout()
            #expect(try await values.next()?.isEmpty == true)
            #expect(try await store.count(User.self) == 0)
            // The erased rows are not left in the file or its log
            let path = try #require(store.path)
            let bytes = try Data(contentsOf: path) + ((try? Data(contentsOf: URL(fileURLWithPath: path.path + "-wal"))) ?? Data())
            #expect(bytes.range(of: Data("user2".utf8)) == nil)
            // Another user's (here the signed-out) store is untouched
            #expect(try await signedOut.count(User.self) == 1)
        }
    }
}
