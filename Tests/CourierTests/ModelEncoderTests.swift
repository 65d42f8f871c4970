import Courier
import Foundation
import Testing

/// Writing models: reverse key rules, and the round trip with the payload's original keys.
@Suite struct ModelEncoderTests {
    struct Pizza: Codable, Sendable, Equatable {
        var pizzaID: Int
        var name: String
        var numberOfIngredients: Int?
    }

    struct User: Codable, Sendable {
        var uid: Int
        var userName: String
        var email: String?
        var isFirstLogin: Bool
        var registerDate: Date
        var favoritePizza: Pizza
        var orderedPizzas: [Pizza]
    }

    @Test func reverseRulesForRequestBodies() throws {
        let user = User(
            uid: 7, userName: "ana", email: nil, isFirstLogin: false, registerDate: Date(timeIntervalSince1970: 1_440_171_945),
            favoritePizza: Pizza(pizzaID: 5, name: "Catuperoni", numberOfIngredients: 3), orderedPizzas: [])
        let data = try ModelEncoder().encode(user)
        #expect(String(decoding: data, as: UTF8.self) == #"{"favorite_pizza":{"name":"Catuperoni","number_of_ingredients":3,"pizza_id":5},"id":7,"is_first_login":false,"ordered_pizzas":[],"register_date":"2015/08/21 15:45:45","user_name":"ana"}"#)
        let back = try ModelDecoder().decode(User.self, from: data)
        #expect(back.userName == "ana" && back.uid == 7 && back.registerDate == user.registerDate && back.favoritePizza == user.favoritePizza)
    }

    @Test func roundTripKeepsOriginalKeysAndLeavesAbsentKeysOut() throws {
        let payload = #"{"id":"123","user_name":"fulana22k","is_first_login":true,"register_date":"2015/08/21 15:45:45","favorite_pizza":{"pizza_id":5,"name":"Catuperoni","number_of_ingredients":null},"OrderedPizzas":[{"pizzaId":5,"name":"Catuperoni"},{"pizza_id":10,"name":"Calabresa","number_of_ingredients":null}]}"#
        var mapped = try ModelDecoder().decodeMapped(User.self, from: Data(payload.utf8))
        #expect(mapped.model.email == nil)
        mapped.model.userName = "renamed"
        mapped.model.orderedPizzas[1].numberOfIngredients = 4
        mapped.model.orderedPizzas.append(Pizza(pizzaID: 11, name: "Nova", numberOfIngredients: nil))
        let json = try mapped.dictionaryRepresentation()
        #expect(json["user_name"]?.stringValue == "renamed")
        #expect(json["id"]?.intValue == 123)
        #expect(json["email"] == nil, "absent in the payload, absent in the representation")
        #expect(json["userName"] == nil && json["uid"] == nil)
        #expect(json["favorite_pizza"]?["number_of_ingredients"] == .null, "a null stays a null")
        #expect(json["OrderedPizzas"]?[0]?["pizzaId"]?.intValue == 5, "each object keeps its own original keys")
        #expect(json["OrderedPizzas"]?[0]?["number_of_ingredients"] == nil)
        #expect(json["OrderedPizzas"]?[1]?["number_of_ingredients"]?.intValue == 4)
        #expect(json["OrderedPizzas"]?[2]?["pizza_id"]?.intValue == 11, "a new object uses the reverse rules")
        #expect(json["register_date"]?.stringValue == "2015/08/21 15:45:45")
    }

    @Test func fixedFormatWritesWhatItReads() throws {
        let format = try #require(FixedDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS") ?? FixedDateFormat("yyyy-MM-dd HH:mm:ss.SSS"))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -3_000_000_000_000...4_000_000_000_000, using: &generator)) / 1_000)
            let text = try #require(format.string(from: date, timeZone: TimeZone(secondsFromGMT: 0)!))
            #expect(format.date(from: text, timeZone: TimeZone(secondsFromGMT: 0)!) == date, "\(text)")
        }
    }
}

@Suite struct IdentifiedTests {
    struct User: Codable, Identified {
        var uid: Int
        var userName: String
    }

    @Test func equalityAndHashingByUID() throws {
        let users = try ModelDecoder().decode([User].self, from: Data(#"[{"id":"1","user_name":"a"},{"id":2,"user_name":"b"}]"#.utf8))
        var renamed = users[1]
        renamed.userName = "changed"
        #expect(renamed == users[1])
        #expect(users.firstIndex(of: renamed) == 1)
        #expect(Set(users + [renamed]).count == 2)
        #expect(User(uid: 3, userName: "x") != User(uid: 4, userName: "x"))
    }
}
