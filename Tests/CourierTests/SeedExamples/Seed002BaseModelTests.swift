@testable import CourierExamples
import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

extension SeedExamples {
    /// Seed 002 (and the second half of seed 000): `BaseModel`, models from a dictionary "como
    /// mágica". Courier's form is a plain `Decodable` struct read by `ModelDecoder` with the seed's
    /// key rules, so no `CodingKeys`, no base class and no runtime introspection. Each test is named
    /// after the seed's note it checks, on the seed's JSON served by the sample server.
    @Suite struct Seed002BaseModelTests {
        typealias User = SeedFixtures.User
        typealias Pizza = SeedFixtures.Pizza

        /// The seed's user, sent by the sample server and decoded by the client's default decoder.
        func fetchUser() async throws -> User {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                return try await client.send(SeedFixtures.serveUser(on: client)).value
            }
        }

        /// "Nomes separados por underscore (`user_name`) são convertidos para camel case".
        @Test func underscoredNamesBecomeCamelCase() async throws {
            let user = try await fetchUser()
            #expect(user.userName == "fulana22k" && user.isFirstLogin)
        }

        /// "`OrderedPizzas` é convertido para `orderedPizzas`".
        @Test func capitalisedNamesStartLowercase() async throws {
            #expect(try await fetchUser().orderedPizzas.map(\.name) == ["Catuperoni", "Calabresa"])
        }

        /// "`pizza_id` é convertido para `pizzaID`"; and a model written for `JSONDecoder`'s
        /// `.convertFromSnakeCase` (`pizzaId`) works too, because Foundation's rule is tried after.
        @Test func aTrailingIdBecomesID() async throws {
            struct FoundationStylePizza: Decodable { var pizzaId: Int }
            #expect(try await fetchUser().favoritePizza.pizzaID == 5)
            #expect(try ModelDecoder().decode(FoundationStylePizza.self, from: Data(#"{"pizza_id": 5}"#.utf8)).pizzaId == 5)
        }

        /// "`id` é convertido para `uid`", and "no JSON, o `id` é uma string, mas na classe foi
        /// declarado como `NSInteger`": `"123"` is read as the `Int` 123.
        @Test func idBecomesUidAndAStringIsConvertedToInt() async throws {
            #expect(try await fetchUser().uid == 123)
        }

        /// "Se a classe da propriedade for uma subclasse do BaseModel, ele é automaticamente
        /// inicializado", and arrays of models through the seed's `@protocol Pizza`: the property's
        /// Swift type says it all.
        @Test func nestedModelsAndArraysOfModels() async throws {
            let user = try await fetchUser()
            #expect(user.favoritePizza == Pizza(pizzaID: 5, name: "Catuperoni", numberOfIngredients: nil))
            #expect(user.orderedPizzas.map(\.pizzaID) == [5, 10])
        }

        /// "caso haja a possibilidade do valor vir `null` da API … deve ser declarado como
        /// NSNumber": an optional (`Int?`) is `nil` for `null`; a non-optional that gets `null` fails
        /// with the key path instead of becoming 0.
        @Test func nullNeedsAnOptional() async throws {
            #expect(try await fetchUser().favoritePizza.numberOfIngredients == nil)
            struct Strict: Decodable { var numberOfIngredients: Int }
            let error = #expect(throws: ModelDecodingError.self) {
                try ModelDecoder().decode(Strict.self, from: Data(#"{"number_of_ingredients": null}"#.utf8))
            }
            #expect(error?.keyPath == "numberOfIngredients")
        }

        /// "No `BaseModel.m` você precisa definir o formato de data": `yyyy/MM/dd HH:mm:ss` is
        /// `ModelDecoder`'s default `dateFormat`.
        @Test func theDateFormatOfTheAPI() async throws {
            #expect(try await fetchUser().registerDate == SeedFixtures.registerDate)
            #expect(ModelDecoder().dateFormat == "yyyy/MM/dd HH:mm:ss")
        }

        /// `User *user = [User initWithDictionary:dict];`: a model from a dictionary already parsed.
        @Test func initWithDictionary() throws {
            let dictionary = try JSONValue.parse(Data(SeedFixtures.userJSON.utf8))
            let user = try ModelDecoder().decode(User.self, from: dictionary)
            #expect(user.uid == 123 && user.favoritePizza.name == "Catuperoni")
        }

        /// The `Helper`'s `transformDictionaryArray:intoArrayOfModels:`, and its `performSelector`
        /// that crashes on an element it cannot read: `decodeArray(of:from:)` throws and names it.
        @Test func transformDictionaryArrayIntoArrayOfModels() throws {
            let dictionaries = try #require(JSONValue.parse(Data(SeedFixtures.userJSON.utf8))["OrderedPizzas"]?.arrayValue)
            let pizzas = try ModelDecoder().decodeArray(of: Pizza.self, from: dictionaries)
            #expect(pizzas.map(\.pizzaID) == [5, 10])
            let error = #expect(throws: ModelDecodingError.self) {
                try ModelDecoder().decodeArray(of: Pizza.self, from: dictionaries + [.object(["name": .string("sem id")])])
            }
            #expect(error?.keyPath == "[2].pizzaID")
        }

        /// "O `BaseModel` conforma ao protocol NSCopying": a Swift struct is copied by assignment, and
        /// the copy changes alone.
        @Test func modelsAreCopies() async throws {
            let user = try await fetchUser()
            var copy = user
            copy.userName = "outra"
            #expect(user.userName == "fulana22k" && copy.userName == "outra")
        }

        /// "Você pode usar a propriedade `modelDateFormat` para alterar o formato de data apenas
        /// naquela instancia": a per-call `dateFormat`. The seed's example pattern `yyyy-MM-DD` has
        /// `DD`, day of the year, where day of the month (`dd`) was meant; the test uses `dd`.
        @Test func modelDateFormatForOneModel() throws {
            struct Event: Decodable { var registerDate: Date }
            let json = try JSONValue.parse(Data(#"{"register_date": "2015-08-21"}"#.utf8))
            let event = try ModelDecoder().decode(Event.self, from: json, dateFormat: "yyyy-MM-dd")
            #expect(event.registerDate == Date(timeIntervalSince1970: 1_440_115_200))
        }

        /// "`BaseModel` declara a propriedade `uid` e a usa para implementar o `isEqual:`":
        /// `Identified` models are equal by `uid`, so `firstIndex(of:)` finds a changed copy.
        @Test func equalityByUid() async throws {
            let user = try await fetchUser()
            var renamed = user
            renamed.userName = "renomeada"
            #expect(renamed == user)
            #expect([renamed].firstIndex(of: user) == 0)
        }

        /// "`dictionaryRepresentation`": the current values under the keys of the original
        /// dictionary; keys the original did not have stay absent.
        @Test func dictionaryRepresentationKeepsTheOriginalKeys() throws {
            struct Profile: Codable, Sendable {
                var userName: String
                var isFirstLogin: Bool
                var nickname: String?
            }
            var mapped = try ModelDecoder().decodeMapped(Profile.self, from: Data(#"{"user_name": "fulana22k", "is_first_login": true}"#.utf8))
            mapped.model.isFirstLogin = false
            mapped.model.nickname = "fu"
            let dictionary = try mapped.dictionaryRepresentation()
            #expect(dictionary == .object(["user_name": .string("fulana22k"), "is_first_login": .bool(false)]))
        }
    }
}
