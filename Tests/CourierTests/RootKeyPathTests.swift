import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// `Request.decoding(at:)`: the value at a key path of the body, with any decoder, and errors that
/// name where they happened from the top of the body.
@Suite struct RootKeyPathTests {
    struct Item: Decodable, Sendable, Equatable {
        var itemID: Int
        var name: String
    }

    struct SnakeItem: Decodable, Sendable, Equatable {
        var itemId: Int
        var name: String
    }

    @Test(arguments: TransportKind.allCases)
    func listsAndObjectsAtAKeyPathWithEitherDecoder(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                try await SeedFixtures.put(#"{"data": {"items": [{"item_id": 1, "name": "a"}, {"item_id": 2, "name": "b"}]}}"#, as: "page", on: client)
                let items = try await client.send(Request<[Item]>(.get, "documents/page").decoding(at: "data.items")).value
                #expect(items == [Item(itemID: 1, name: "a"), Item(itemID: 2, name: "b")])

                // Another decoder is given the part alone.
                let foundation = JSONDecoder()
                foundation.keyDecodingStrategy = .convertFromSnakeCase
                var strict = Request<[SnakeItem]>(.get, "documents/page").decoding(at: "data.items")
                strict.decoder = foundation
                #expect(try await client.send(strict).value.map(\.itemId) == [1, 2])

                // One object of the list: a failure inside it is named from the top of the body.
                try await SeedFixtures.put(#"{"data": {"items": [{"item_id": 1, "name": "a"}, {"item_id": 2}]}}"#, as: "bad", on: client)
                let inside = await #expect(throws: CourierError.self) {
                    try await client.send(Request<[Item]>(.get, "documents/bad").decoding(at: "data.items"))
                }
                #expect(inside?.keyPath == "data.items[1].name")
                strict.path = "documents/bad"
                let foundationInside = await #expect(throws: CourierError.self) { try await client.send(strict) }
                #expect(foundationInside?.keyPath == "data.items[1].name")
            }
        }
    }

    @Test func aPathThroughSomethingElseThanAnObjectSaysSo() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            try await SeedFixtures.put(#"{"data": [1, 2]}"#, as: "list", on: client)
            let error = await #expect(throws: CourierError.self) {
                try await client.send(Request<[Item]>(.get, "documents/list").decoding(at: "data.items"))
            }
            #expect(error?.classification == .decodingFailed(keyPath: "data.items"))
            #expect(error?.message.contains("data is not an object") == true)

            // HTML where JSON was expected: an error, not a crash, and not a value.
            try await SeedFixtures.put("<html><body>Maintenance</body></html>", as: "html", contentType: "text/html", on: client)
            let html = await #expect(throws: CourierError.self) {
                try await client.send(Request<[Item]>(.get, "documents/html").decoding(at: "data"))
            }
            #expect(html?.kind == .decodingFailed)
        }
    }

    /// A value whose own decoding refuses it at its top: the key path is the root key path, and
    /// the message names it once (before: "data.the top level").
    @Test func aValueRefusedAtItsTopIsNamedByTheRootKeyPath() async throws {
        struct Flag: Decodable {
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a flag")
            }
        }
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            try await SeedFixtures.put(#"{"data": 1}"#, as: "flag", on: client)
            let error = await #expect(throws: CourierError.self) {
                try await client.send(Request<Flag>(.get, "documents/flag").decoding(at: "data"))
            }
            #expect(error?.keyPath == "data")
            #expect(error?.message.contains("data: not a flag") == true, "\(String(describing: error?.message))")
            #expect(error?.message.contains("top level") == false, "\(String(describing: error?.message))")
        }
    }

    @Test func everyOtherSettingOfTheRequestIsKept() {
        var request = Request<[Item]>(.post, "items", query: ["q": 1], body: ["a": 1], headers: ["X-A": "1"], cache: .both)
        request.timeout = 3
        request.name = "items"
        let rooted = request.decoding(at: "data")
        #expect(rooted.method == .post && rooted.path == "items" && rooted.query == request.query && rooted.headers == request.headers)
        #expect(rooted.cacheOption == .both && rooted.timeout == 3 && rooted.name == "items")
    }
}
