@testable import CourierExamples
import Courier
import Foundation
import Testing

/// The seed-002 rules on `Decodable`: key mapping, conversions, dates, errors with key paths.
@Suite struct ModelDecoderTests {
    static let seedJSON = SeedFixtures.userJSON
    typealias Pizza = SeedFixtures.Pizza
    typealias User = SeedFixtures.User

    @Test func theSeedPayloadDecodesIntoTheSeedModels() throws {
        let user = try ModelDecoder().decode(User.self, from: Data(Self.seedJSON.utf8))
        #expect(user.uid == 123)
        #expect(user.userName == "fulana22k")
        #expect(user.email == "fulana22k@example.com")
        #expect(user.isFirstLogin)
        #expect(user.registerDate == Date(timeIntervalSince1970: 1_440_171_945))
        #expect(user.favoritePizza == Pizza(pizzaID: 5, name: "Catuperoni", numberOfIngredients: nil))
        #expect(user.orderedPizzas == [Pizza(pizzaID: 5, name: "Catuperoni", numberOfIngredients: nil), Pizza(pizzaID: 10, name: "Calabresa", numberOfIngredients: nil)])
    }

    @Test(arguments: [
        ("user_name", "userName"), ("OrderedPizzas", "orderedPizzas"), ("pizza_id", "pizzaID"), ("pizzaId", "pizzaID"),
        ("id", "id"), ("is_first_login", "isFirstLogin"), ("number_of_ingredients", "numberOfIngredients"),
        ("already", "already"), ("user_id_list", "userIDList"),
    ])
    func keyRules(payload: String, property: String) {
        #expect(KeyMapping.propertyName(for: payload) == property)
    }

    @Test(arguments: [("userName", "user_name"), ("pizzaID", "pizza_id"), ("uid", "id"), ("orderedPizzas", "ordered_pizzas"), ("name", "name")])
    func reverseKeyRules(property: String, payload: String) {
        #expect(KeyMapping.payloadKey(for: property) == payload)
    }

    @Test(arguments: [
        ("pizza_id", "pizzaId"), ("user_name", "userName"), ("USER_NAME", "userName"), ("_private_key_", "_privateKey_"),
        ("already", "already"), ("camelCase", "camelCase"), ("a__b", "aB"), ("__", "__"), ("", ""),
    ])
    func foundationKeyRule(payload: String, property: String) {
        #expect(KeyMapping.foundationPropertyName(for: payload) == property)
    }

    /// A model written for `JSONDecoder` with `.convertFromSnakeCase` (`pizzaId` for `pizza_id`)
    /// decodes unchanged: the exact key first, then the seed's rule (`pizzaID`), then Foundation's.
    @Test func aModelWrittenForFoundationsSnakeCaseRuleDecodesAndRoundTrips() throws {
        struct FoundationStyle: Codable, Equatable { var pizzaId: Int; var userName: String; var numberOfIngredients: Int? }
        struct SeedStyle: Decodable { var pizzaID: Int }
        let payload = Data(#"{"pizza_id":5,"user_name":"ana","number_of_ingredients":3}"#.utf8)
        let model = try ModelDecoder().decode(FoundationStyle.self, from: payload)
        #expect(model == FoundationStyle(pizzaId: 5, userName: "ana", numberOfIngredients: 3))
        #expect(try ModelDecoder().decode(SeedStyle.self, from: payload).pizzaID == 5)
        let exact = try ModelDecoder().decode(FoundationStyle.self, from: Data(#"{"pizzaId":1,"pizza_id":2,"user_name":"a"}"#.utf8))
        #expect(exact.pizzaId == 1)
        let written = try JSONSerialization.jsonObject(with: ModelEncoder().encode(model)) as? [String: Any]
        #expect(written?["pizza_id"] as? Int == 5)
        #expect(try ModelDecoder().decode(FoundationStyle.self, from: ModelEncoder().encode(model)) == model)
    }

    @Test func anExactKeyWinsOverAConvertedOneAndIdFillsUid() throws {
        struct Model: Decodable { var userName: String; var uid: String }
        let both = try ModelDecoder().decode(Model.self, from: Data(#"{"user_name":"converted","userName":"exact","id":7}"#.utf8))
        #expect(both.userName == "exact")
        #expect(both.uid == "7")
        let own = try ModelDecoder().decode(Model.self, from: Data(#"{"userName":"x","uid":"own","id":7}"#.utf8))
        #expect(own.uid == "own")
    }

    struct Scalars: Decodable {
        var int: Int
        var double: Double
        var string: String
        var bool: Bool
    }

    @Test(arguments: [
        (#"{"int":"123","double":"12.5","string":5,"bool":"true"}"#, 123, 12.5, "5", true),
        (#"{"int":5.0,"double":3,"string":2.5,"bool":1}"#, 5, 3.0, "2.5", true),
        (#"{"int":-4,"double":-0.25,"string":false,"bool":"NO"}"#, -4, -0.25, "false", false),
        (#"{"int":" 42 ","double":"1e3","string":"s","bool":0}"#, 42, 1000.0, "s", false),
    ])
    func conversions(json: String, int: Int, double: Double, string: String, bool: Bool) throws {
        let value = try ModelDecoder().decode(Scalars.self, from: Data(json.utf8))
        #expect(value.int == int && value.double == double && value.string == string && value.bool == bool)
    }

    @Test(arguments: [
        (#"{"int":"12x","double":1,"string":"s","bool":true}"#, "int: expected Int, found the string \"12x\""),
        (#"{"int":1.5,"double":1,"string":"s","bool":true}"#, "int: expected Int, found the number 1.5"),
        (#"{"int":1,"double":"abc","string":"s","bool":true}"#, "double: expected Double, found the string \"abc\""),
        (#"{"int":1,"double":1,"string":[1],"bool":true}"#, "string: expected a string, found an array"),
        (#"{"int":1,"double":1,"string":"s","bool":2}"#, "bool: expected a Boolean, found the number 2"),
        (#"{"int":1,"double":1,"string":"s","bool":"maybe"}"#, "bool: expected a Boolean, found the string \"maybe\""),
        (#"{"int":1,"double":1,"string":"s"}"#, "bool: is missing"),
        (#"{"int":null,"double":1,"string":"s","bool":true}"#, "int: expected Int, found null"),
    ])
    func conversionFailuresAreErrors(json: String, message: String) {
        #expect {
            _ = try ModelDecoder().decode(Scalars.self, from: Data(json.utf8))
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func errorsNameTheFullKeyPath() {
        let json = #"{"id":1,"user_name":"a","email":"e","is_first_login":true,"register_date":"2015/08/21 15:45:45","favorite_pizza":{"pizza_id":1,"name":"x"},"OrderedPizzas":[{"pizza_id":5,"name":"a"},{"pizza_id":"ten","name":"b"}]}"#
        #expect {
            _ = try ModelDecoder().decode(User.self, from: Data(json.utf8))
        } throws: { error in
            guard let error = error as? ModelDecodingError else { return false }
            return error.keyPath == "orderedPizzas[1].pizzaID" && error.reason == "expected Int, found the string \"ten\""
        }
    }

    @Test func datesInTheGlobalFormatAPerCallFormatISO8601AndUnixSeconds() throws {
        struct Event: Decodable { var at: Date }
        let decoder = ModelDecoder()
        #expect(try decoder.decode(Event.self, from: Data(#"{"at":"2015/08/21 15:45:45"}"#.utf8)).at == Date(timeIntervalSince1970: 1_440_171_945))
        #expect(try decoder.decode(Event.self, from: Data(#"{"at":"2015-08-21T15:45:45Z"}"#.utf8)).at == Date(timeIntervalSince1970: 1_440_171_945))
        #expect(try decoder.decode(Event.self, from: Data(#"{"at":1440171945}"#.utf8)).at == Date(timeIntervalSince1970: 1_440_171_945))
        let perCall = try decoder.decode(Event.self, from: .object(["at": .string("21.08.2015")]), dateFormat: "dd.MM.yyyy")
        #expect(perCall.at == Date(timeIntervalSince1970: 1_440_115_200))
        let zoned = ModelDecoder(timeZone: TimeZone(secondsFromGMT: 3 * 3600)!)
        #expect(try zoned.decode(Event.self, from: Data(#"{"at":"2015/08/21 15:45:45"}"#.utf8)).at == Date(timeIntervalSince1970: 1_440_171_945 - 3 * 3600))
        #expect(throws: ModelDecodingError.self) { try decoder.decode(Event.self, from: Data(#"{"at":"2015/02/30 10:00:00"}"#.utf8)) }
        #expect(throws: ModelDecodingError.self) { try decoder.decode(Event.self, from: Data(#"{"at":"yesterday"}"#.utf8)) }
    }

    @Test(arguments: ["yyyy/MM/dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss'Z'"])
    func fixedDateFormatAgreesWithDateFormatter(pattern: String) throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = pattern
        let fixed = try #require(FixedDateFormat(pattern))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            let text = formatter.string(from: date)
            #expect(fixed.date(from: text, timeZone: TimeZone(secondsFromGMT: 0)!) == date, "\(text)")
            #expect(fixed.string(from: date, timeZone: TimeZone(secondsFromGMT: 0)!) == text)
        }
        #expect(FixedDateFormat("EEE, dd MMM") == nil)
        #expect(FixedDateFormat("yyyy''MM") == nil, "an empty quote is DateFormatter's escaped quote: left to DateFormatter")
    }

    @Test func dictionariesNestedArraysAndTheArrayHelper() throws {
        struct Menu: Decodable { var pizzasByCode: [String: Pizza]; var grid: [[Int?]] }
        let json = #"{"pizzas_by_code":{"cat_1":{"pizza_id":1,"name":"A"}},"grid":[[1,null],["2"]]}"#
        let menu = try ModelDecoder().decode(Menu.self, from: Data(json.utf8))
        #expect(menu.pizzasByCode == ["cat_1": Pizza(pizzaID: 1, name: "A", numberOfIngredients: nil)])
        #expect(menu.grid == [[1, nil], [2]])
        let pizzas = try ModelDecoder().decodeArray(of: Pizza.self, from: [.object(["pizza_id": .int(3), "name": .string("B")])])
        #expect(pizzas == [Pizza(pizzaID: 3, name: "B", numberOfIngredients: nil)])
    }
}
