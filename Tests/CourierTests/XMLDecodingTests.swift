import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// XML into `Decodable` models through the `XMLNode` tree.
@Suite struct XMLDecodingTests {
    struct Pizza: Decodable, Sendable, Equatable {
        var pizzaId: Int
        var name: String
        var numberOfIngredients: Int?
    }

    struct User: Decodable, Sendable {
        var id: String
        var userName: String
        var isFirstLogin: Bool
        var registerDate: String
        var favoritePizza: Pizza
        var orderedPizzas: [Pizza]
    }

    @Test func theSampleDecodesFromTheServersXML() async throws {
        try await withServer { server in
            var request = Request<User>(.get, "sample", query: ["type": "xml"])
            request.decoder = XMLTreeDecoder()
            let user = try await server.client(URLSessionTransport()).send(request).value
            #expect(user.id == "123")
            #expect(user.userName == "fulana22k")
            #expect(user.isFirstLogin)
            #expect(user.favoritePizza == Pizza(pizzaId: 5, name: "Catuperoni", numberOfIngredients: nil))
            #expect(user.orderedPizzas == [Pizza(pizzaId: 5, name: "Catuperoni", numberOfIngredients: nil), Pizza(pizzaId: 10, name: "Calabresa", numberOfIngredients: 3)])
            // chosen by Content-Type without naming a decoder
            let chosen = try await server.client(URLSessionTransport()).send(Request<User>(.get, "sample", query: ["type": "xml"])).value
            #expect(chosen.orderedPizzas.map(\.pizzaId) == [5, 10])
        }
    }

    /// One model, one set of key rules: the same properties are read from JSON by `ModelDecoder`
    /// and from XML by `XMLTreeDecoder` (snake case, a last `id` as `ID`, Foundation's `Id`,
    /// `id` for `uid`, a leading capital lowered).
    struct Order: Decodable, Equatable {
        var uid: Int
        var pizzaID: Int
        var customerId: Int
        var orderedBy: String
    }

    @Test func jsonAndXMLBodiesFollowTheSameKeyRules() throws {
        let json = Data(#"{"id": 7, "pizza_id": 5, "customer_id": 3, "OrderedBy": "ana"}"#.utf8)
        let xml = Data("<order><id>7</id><pizza_id>5</pizza_id><customer_id>3</customer_id><OrderedBy>ana</OrderedBy></order>".utf8)
        let expected = Order(uid: 7, pizzaID: 5, customerId: 3, orderedBy: "ana")
        #expect(try ModelDecoder().decode(Order.self, from: json) == expected)
        #expect(try XMLTreeDecoder().decode(Order.self, from: xml) == expected)
        let attributes = Data(#"<order id="7" pizza_id="5" customer_id="3" OrderedBy="ana"/>"#.utf8)
        #expect(try XMLTreeDecoder().decode(Order.self, from: attributes) == expected)
        #expect(throws: DecodingError.self) { try XMLTreeDecoder(keyDecoding: .useDefaultKeys).decode(Order.self, from: xml) }
    }

    struct Feed: Decodable, Equatable {
        struct Entry: Decodable, Equatable {
            var id: Int
            var title: String
            var updated: Date
        }
        var version: String
        var tag: [String]
        var entry: [Entry]
    }

    @Test func attributesRepeatedSiblingsAndDates() throws {
        let xml = """
        <feed version="2"><tag>a</tag><tag>b</tag>
          <entry id="1"><title>One &amp; only</title><updated>2015-08-21T15:45:45Z</updated></entry>
          <entry id="2"><title><![CDATA[<Two>]]></title><updated>1440171945</updated></entry>
        </feed>
        """
        let feed = try XMLTreeDecoder(keyDecoding: .useDefaultKeys).decode(Feed.self, from: Data(xml.utf8))
        #expect(feed.version == "2")
        #expect(feed.tag == ["a", "b"])
        #expect(feed.entry.map(\.title) == ["One & only", "<Two>"])
        #expect(feed.entry.map(\.updated) == [Date(timeIntervalSince1970: 1_440_171_945), Date(timeIntervalSince1970: 1_440_171_945)])
    }

    @Test func failuresNameTheKeyPath() async throws {
        struct Strict: Decodable { var orderedPizzas: [Pizza] }
        let xml = "<user><ordered_pizzas><item><pizza_id>5</pizza_id><name>A</name></item><item><pizza_id>x</pizza_id><name>B</name></item></ordered_pizzas></user>"
        do {
            _ = try XMLTreeDecoder().decode(Strict.self, from: Data(xml.utf8))
            Issue.record("decoding should fail")
        } catch let error as DecodingError {
            guard case .typeMismatch(_, let context) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["orderedPizzas", "1", "pizzaId"])
            #expect(context.debugDescription.contains("\"x\""))
        }
        try await withServer { server in
            var request = Request<Strict>(.get, "sample", query: ["type": "xml"])
            request.decoder = XMLTreeDecoder(keyDecoding: .useDefaultKeys)
            let error = await #expect(throws: CourierError.self) { try await server.client(URLSessionTransport()).send(request) }
            #expect(error?.keyPath == "orderedPizzas")
        }
    }
}
