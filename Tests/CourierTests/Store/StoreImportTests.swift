import Courier
import CourierStore
import Foundation
import GRDB
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Importing responses into a `CourierStore`: JSON and XML from the sample server, root keys,
/// nested models, counts, unchanged rows left alone, the delete policy, failed imports.
@Suite struct StoreImportTests {
    typealias User = StoreFixtures.User
    typealias Pizza = StoreFixtures.Pizza
    typealias Image = StoreFixtures.Image

    @Test(arguments: TransportKind.allCases)
    func importsTheImageListAsJSONAndAsXML(kind: TransportKind) async throws {
        try await withServer { server in try await kind.with { transport in
            let client = server.client(transport)
            try await StoreFixtures.upload(["Sunrise", "Noon", "Sunset"], with: client)

            let fromJSON = try CourierStore.inMemory()
            let json = try await client.send(Request<Data>(.get, "images"), into: fromJSON, as: Image.self, root: "images")
            #expect(json.inserted == 3 && json.updated == 0 && json.unchanged == 0)
            let images = try await fromJSON.models(Image.self)
            #expect(images.map(\.title) == ["Sunrise", "Noon", "Sunset"])
            #expect(images.allSatisfy { $0.mimeType == "image/png" && $0.size == StoreFixtures.png.count })

            let fromXML = try CourierStore.inMemory()
            let xml = try await client.send(Request<Data>(.get, "images", query: ["type": "xml"]), into: fromXML, as: Image.self, root: "images")
            #expect(xml.inserted == 3)
            let xmlImages = try await fromXML.models(Image.self)
            #expect(xmlImages.map(\.uid) == images.map(\.uid) && xmlImages.map(\.size) == images.map(\.size))
            let again = try await client.send(Request<Data>(.get, "images", query: ["type": "xml"]), into: fromXML, as: Image.self, root: "images")
            #expect(again.unchanged == 3 && !again.changedSomething)

            let single = try await client.send(Request<Data>(.get, "images/\(images[1].uid)", query: ["type": "xml"]), into: fromXML, as: Image.self)
            #expect(single.unchanged == 1)
            #expect(try await fromXML.model(Image.self, uid: images[1].uid)?.title == "Noon")
        } }
    }

    @Test func rootKeyPathsUnwrapListsAndSingleObjects() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let store = try CourierStore.inMemory()
            try await StoreFixtures.put(#"{"meta":{"page":1},"data":{"items":\#(StoreFixtures.users(1...3))}}"#, as: "page", on: client)
            let page = try await client.send(Request<Data>(.get, "documents/page"), into: store, as: User.self, root: "data.items")
            #expect(page.inserted == 3)

            // seed 004's firstKey: the object under "object"
            try await StoreFixtures.put(#"{"object":{"id":9,"user_name":"nine","is_first_login":true}}"#, as: "one", on: client)
            let one = try await client.send(Request<Data>(.get, "documents/one"), into: store, as: User.self, root: "object")
            #expect(one.inserted == 1)
            #expect(try await store.model(User.self, uid: 9)?.userName == "nine")

            // A key escaped in the body still matches
            try await StoreFixtures.put(#"{"d\u0061ta":{"items":\#(StoreFixtures.users([4]))}}"#, as: "escaped", on: client)
            let escaped = try await client.send(Request<Data>(.get, "documents/escaped"), into: store, as: User.self, root: "data.items")
            #expect(escaped.inserted == 1)

            let missing = await #expect(throws: CourierError.self) {
                try await client.send(Request<Data>(.get, "documents/page"), into: store, as: User.self, root: "data.users")
            }
            #expect(missing?.kind == .decodingFailed)
            // The words decoding(at:) uses for the same path: one reader of root key paths.
            let reason = #"expected a value at the root key path "data.users", but data has no key "users""#
            #expect(missing?.message.contains(reason) == true, "\(String(describing: missing?.message))")
            let decoded = await #expect(throws: CourierError.self) {
                try await client.send(Request<[User]>(.get, "documents/page").decoding(at: "data.users"))
            }
            #expect(decoded?.message.contains(reason) == true, "\(String(describing: decoded?.message))")
            #expect(try await store.count(User.self) == 5)
        }
    }

    /// One XML payload reads the same through `send` (an XML answer to a client whose decoder is
    /// a ModelDecoder) and through a store import, and as its JSON twin: the seed's date pattern
    /// included, which the XML decoder did not read before (it took only ISO 8601 and seconds).
    @Test func anXMLPayloadReadsTheSameThroughSendAndThroughAStoreImport() async throws {
        struct Event: Codable, Identified, Sendable, Equatable {
            var uid: Int
            var eventName: String
            var startsAt: Date
        }
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.decoder = ModelDecoder(dateFormat: "dd.MM.yyyy HH:mm") }
            let xml = "<event><id>7</id><event_name>Launch</event_name><starts_at>24.11.2026 10:15</starts_at></event>"
            let json = #"{"id": 7, "event_name": "Launch", "starts_at": "24.11.2026 10:15"}"#
            try await SeedFixtures.put(xml, as: "event-xml", contentType: "application/xml", on: client)
            try await SeedFixtures.put(json, as: "event-json", on: client)
            let expected = Event(uid: 7, eventName: "Launch", startsAt: Date(timeIntervalSince1970: 1_795_947_300))
            #expect(try await client.send(Request<Event>(.get, "documents/event-xml")).value == expected)
            #expect(try await client.send(Request<Event>(.get, "documents/event-json")).value == expected)
            let store = try CourierStore.inMemory(configuration: StoreConfiguration(decoder: ModelDecoder(dateFormat: "dd.MM.yyyy HH:mm")))
            let imported = try await store.import(Event.self, from: Data(xml.utf8), contentType: "application/xml")
            #expect(imported.inserted == 1)
            #expect(try await store.model(Event.self, uid: 7) == expected)
        }
    }

    /// Lists in XML read the same through `send` and through a store import: a list of one
    /// (`<images><image>…</image></images>`) and a model's list field with one element
    /// (`<tags><tag>a</tag></tags>`), which before the import read as objects (it turned XML into
    /// JSON without the model, and a lone child looked like a member), and both numbers and flags.
    @Test func xmlListsReadTheSameThroughSendAndThroughAStoreImport() async throws {
        struct Photo: Codable, Identified, Sendable, Equatable {
            var uid: Int
            var title: String
            var tags: [String]
            var isPublic: Bool
            var ratio: Double
        }
        let one = "<images><image><id>1</id><title>Dunes</title><tags><tag>sand</tag></tags><is_public>yes</is_public><ratio>1.5</ratio></image></images>"
        let two = """
            <images><image><id>1</id><title>Dunes</title><tags><tag>sand</tag></tags><is_public>1</is_public><ratio>1.5</ratio></image>\
            <image><id>2</id><title>Sea</title><tags><tag>blue</tag><tag>wave</tag></tags><is_public>false</is_public><ratio>2</ratio></image></images>
            """
        let dunes = Photo(uid: 1, title: "Dunes", tags: ["sand"], isPublic: true, ratio: 1.5)
        let sea = Photo(uid: 2, title: "Sea", tags: ["blue", "wave"], isPublic: false, ratio: 2)
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            try await SeedFixtures.put(one, as: "images-one", contentType: "application/xml", on: client)
            try await SeedFixtures.put(two, as: "images-two", contentType: "application/xml", on: client)
            #expect(try await client.send(Request<[Photo]>(.get, "documents/images-one")).value == [dunes])
            #expect(try await client.send(Request<[Photo]>(.get, "documents/images-two")).value == [dunes, sea])
            let store = try CourierStore.inMemory()
            let first = try await store.import(Photo.self, from: Data(one.utf8), contentType: "application/xml")
            #expect(first.inserted == 1)
            #expect(try await store.model(Photo.self, uid: 1) == dunes)
            // The same objects again are unchanged, though "yes" and "1" are written differently.
            let second = try await store.import(Photo.self, from: Data(two.utf8), contentType: "application/xml")
            #expect(second.inserted == 1 && second.unchanged == 1)
            #expect(try await store.models(Photo.self, .all.order(Column("uid"))) == [dunes, sea])
        }
    }

    /// The objects of a JSON body are found by JSONParser's own reading (no second tokenizer): a
    /// broken body fails with the parser's offset, a value that is not an object or a list says
    /// what it is, and nothing is stored either way.
    @Test(arguments: [
        (#"{"data": [{"id": 1, "user_name": "ana"}, {"id": 2"#, "Invalid JSON at byte "),
        (#"{"data": [{"id": 1, "user_name": "ana"}] x"#, "Invalid JSON at byte "),
        (#"{"data": [{"id": 1, "user_name": "ana"}], "next": {"page": 2} } ]"#, "Invalid JSON at byte "),
        (#"{"data": "users"}"#, "holds a string, not an object or a list of objects"),
        (#"{"data": 42}"#, "holds a number, Boolean or null"),
    ])
    func aBodyWithoutObjectsAtTheRootFailsAndStoresNothing(body: String, reason: String) async throws {
        let store = try CourierStore.inMemory()
        let error = await #expect(throws: CourierError.self) {
            try await store.import(User.self, from: Data(body.utf8), root: "data")
        }
        #expect(error?.kind == .decodingFailed)
        #expect(error?.message.contains(reason) == true, "\(String(describing: error?.message))")
        #expect((try? await store.count(User.self)) ?? 0 == 0)
    }

    @Test func nestedIdentifiedModelsAreStoredAsTheirOwnRows() async throws {
        let store = try CourierStore.inMemory()
        let body = Data(#"""
            [{"id":1,"user_name":"ana","is_first_login":false,"favorite_pizza":{"id":5,"name":"Catuperoni"},
              "ordered_pizzas":[{"id":5,"name":"Catuperoni"},{"id":10,"name":"Calabresa"}]},
             {"id":2,"user_name":"bia","is_first_login":true,"favorite_pizza":{"id":10,"name":"Calabresa"}}]
            """#.utf8)
        let summary = try await store.import(User.self, from: body)
        #expect(summary.inserted == 2)
        #expect(summary.nested["Pizza"]?.inserted == 2)
        #expect(summary.nested["Pizza"]?.unchanged == 2)
        let pizzas = try await store.models(Pizza.self, .all.order(Column("uid")))
        #expect(pizzas.map(\.name) == ["Catuperoni", "Calabresa"])
        let ana = try await store.model(User.self, uid: 1)
        #expect(ana?.orderedPizzas?.map(\.uid) == [5, 10])
        #expect(ana?.favoritePizza?.name == "Catuperoni")

        let renamed = Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "Calabresa", with: "Calabresa Especial").utf8)
        let second = try await store.import(User.self, from: renamed)
        #expect(second.updated == 2 && second.nested["Pizza"]?.updated == 1)
        #expect(try await store.model(Pizza.self, uid: 10)?.name == "Calabresa Especial")
    }

    @Test func unchangedObjectsAreCountedAndNotRewritten() async throws {
        let store = try CourierStore.inMemory()
        let first = try await store.import(User.self, from: Data(StoreFixtures.users(1...3).utf8))
        #expect(first.inserted == 3 && first.changedSomething)
        let times = try await store.importTimes("User")

        let same = try await store.import(User.self, from: Data(StoreFixtures.users(1...3).utf8))
        #expect(same.unchanged == 3 && same.inserted + same.updated + same.deleted == 0)
        // The same objects with their keys in another order and other spacing are unchanged too
        let reordered = Data(#"[ {"is_first_login":false, "user_name":"user1", "id":1} ]"#.utf8)
        let shuffled = try await store.import(User.self, from: reordered)
        #expect(shuffled.unchanged == 1)
        #expect(try await store.importTimes("User") == times)

        let changed = try await store.import(User.self, from: Data(StoreFixtures.users(1...3) { $0 == 2 ? "renamed" : "user\($0)" }.utf8))
        #expect(changed.updated == 1 && changed.unchanged == 2)
        let after = try await store.importTimes("User")
        #expect(after[1] == times[1] && after[3] == times[3] && after[2] != times[2])
        #expect(try await store.model(User.self, uid: 2)?.userName == "renamed")
    }

    @Test func theDeletePolicyReplacesTheCollection() async throws {
        let store = try CourierStore.inMemory()
        try await store.import(User.self, from: Data(StoreFixtures.users(1...3).utf8))
        let kept = try await store.import(User.self, from: Data(StoreFixtures.users(2...4).utf8), missing: .keep)
        #expect(kept.inserted == 1 && kept.unchanged == 2 && kept.deleted == 0)
        #expect(try await store.count(User.self) == 4)
        let replaced = try await store.import(User.self, from: Data(StoreFixtures.users(3...5).utf8), missing: .delete)
        #expect(replaced.inserted == 1 && replaced.unchanged == 2 && replaced.deleted == 2)
        #expect(try await store.models(User.self).map(\.uid) == [3, 4, 5])
        let emptied = try await store.import(User.self, from: Data("[]".utf8), missing: .delete)
        #expect(emptied.deleted == 3)
        #expect(try await store.count(User.self) == 0)
    }

    @Test func aFailedImportChangesNothing() async throws {
        let store = try CourierStore.inMemory()
        try await store.import(User.self, from: Data(StoreFixtures.users(1...3).utf8))
        let times = try await store.importTimes("User")
        let broken = Data(#"[{"id":1,"user_name":"changed","is_first_login":true},{"id":7,"user_name":"new","is_first_login":false},{"id":8}]"#.utf8)
        let error = await #expect(throws: CourierError.self) {
            try await store.import(User.self, from: broken, missing: .delete)
        }
        #expect(error?.kind == .decodingFailed)
        #expect(error?.keyPath == "userName")
        #expect(try await store.models(User.self).map(\.userName) == ["user1", "user2", "user3"])
        #expect(try await store.importTimes("User") == times)

        let html = await #expect(throws: CourierError.self) {
            try await store.import(User.self, from: Data("<html><body>Bad gateway</body>".utf8), contentType: "text/html")
        }
        #expect(html?.kind == .decodingFailed)
        #expect(html?.message.contains("neither JSON nor XML") == true)
        let truncated = await #expect(throws: CourierError.self) {
            try await store.import(User.self, from: Data(#"[{"id":1,"user_name":"a""#.utf8))
        }
        #expect(truncated?.kind == .decodingFailed)
        #expect(try await store.count(User.self) == 3)
    }

    @Test func indexedColumnsFilterAndSort() async throws {
        let store = try CourierStore.inMemory()
        try await store.import(User.self, from: Data(StoreFixtures.users(1...6).utf8))
        // Registered after rows exist: the column is filled for them
        try await store.index(User.self, [StoreColumn("userName") { $0.userName }, StoreColumn("isFirstLogin") { $0.isFirstLogin }])
        try await store.import(User.self, from: Data(StoreFixtures.users([7]).utf8))
        let firstLogins = try await store.models(User.self, .all.filter(Column("isFirstLogin") == true).order(Column("userName").desc))
        #expect(firstLogins.map(\.uid) == [6, 4, 2])
        let page = try await store.models(User.self, .all.order(Column("uid").desc).limit(2, offset: 1))
        #expect(page.map(\.uid) == [6, 5])
        // The JSON body answers SQLite's JSON functions
        let named = try await store.models(User.self, .all.filter(sql: "json_extract(body, '$.user_name') = ?", arguments: ["user7"]))
        #expect(named.map(\.uid) == [7])
        let reserved = await #expect(throws: CourierError.self) { try await store.index(User.self, [StoreColumn("body") { $0.userName }]) }
        #expect(reserved?.kind == .store)
    }

    @Test func grdbRecordsWithTheirOwnMigrationsUseTheSameCalls() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let store = try CourierStore.inMemory(configuration: StoreConfiguration(migrator: StoreFixtures.playerMigrator))
            try await StoreFixtures.put(#"{"players":[{"id":1,"name":"Ana","score":10},{"id":2,"name":"Bia","score":20}]}"#, as: "players", on: client)
            let first = try await client.send(Request<Data>(.get, "documents/players"), into: store, as: StoreFixtures.Player.self, root: "players")
            #expect(first.inserted == 2)
            try await StoreFixtures.put(#"{"players":[{"id":2,"name":"Bia","score":25},{"id":3,"name":"Caio","score":5}]}"#, as: "players", on: client)
            let second = try await client.send(
                Request<Data>(.get, "documents/players"), into: store, as: StoreFixtures.Player.self, root: "players", missing: .delete)
            #expect(second.inserted == 1 && second.updated == 1 && second.deleted == 1 && second.unchanged == 0)
            let third = try await client.send(Request<Data>(.get, "documents/players"), into: store, as: StoreFixtures.Player.self, root: "players")
            #expect(third.unchanged == 2 && !third.changedSomething)
            let players = try await store.records(StoreFixtures.Player.order(Column("score").desc))
            #expect(players == [.init(id: 2, name: "Bia", score: 25), .init(id: 3, name: "Caio", score: 5)])

            // A record without a table: a store error with SQLite's words, not a crash
            struct Unmigrated: Codable, FetchableRecord, PersistableRecord, Sendable { var id: Int }
            let error = await #expect(throws: CourierError.self) {
                try await store.import(Unmigrated.self, from: Data(#"[{"id":1}]"#.utf8))
            }
            #expect(error?.kind == .store)
            #expect(error?.message.contains("no such table") == true)
        }
    }
}
