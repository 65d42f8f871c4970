import Courier
import Foundation

// The code of the "Model mapping" and "Sending requests" articles, compiled; `DocExamplesTests`
// runs it.

struct Event: Decodable { var registerDate: Date }

/// A date in the format of one call, not the decoder's.
func registerDate() throws -> Date {
    let json = try JSONValue.parse(Data(#"{"register_date": "2015-08-21"}"#.utf8))
    let event = try ModelDecoder().decode(Event.self, from: json, dateFormat: "yyyy-MM-dd")
    return event.registerDate                                      // 2015-08-21 00:00 UTC
}

/// The seed's `Pizza : BaseModel`: `NSNumber *numberOfIngredients` (nullable) is `Int?`.
public struct Pizza: Codable, Sendable, Equatable {
    public var pizzaID: Int
    public var name: String
    public var numberOfIngredients: Int?
}

/// A list of dictionaries into models; a failure names the element and the key.
func pizzas(from dictionaries: [JSONValue]) throws -> [Pizza] {
    do {
        return try ModelDecoder().decodeArray(of: Pizza.self, from: dictionaries)
    } catch let error as ModelDecodingError {
        print("\(error.keyPath): \(error.reason)")                  // "[2].pizzaID: …" for a pizza without an id
        throw error
    }
}

/// Query and body parameters on the same request.
func search(client: APIClient) async throws -> Echo {
    try await client.send(Request<Echo>(.post, "echo/search", query: ["page": 2], body: ["q": "pizza"])).value
}

/// The seed's `User : BaseModel`; the seed's `@protocol Pizza` for the array's element class is
/// the array's element type, which Swift keeps after compilation.
public struct User: Codable, Sendable, Identified {
    public var uid: Int
    public var userName: String
    public var email: String
    public var isFirstLogin: Bool
    public var registerDate: Date
    public var favoritePizza: Pizza
    public var orderedPizzas: [Pizza]
}

/// The seed's `initWithDictionary:` and `arrayOfModelsFromDictionaries:`: a user payload into a
/// model, and its list of pizzas into models of their own.
func decodeUser(from payload: Data) throws -> (user: User, pizzas: [Pizza]) {
    let dictionary = try JSONValue.parse(payload)
    let user = try ModelDecoder().decode(User.self, from: dictionary)
    let dictionaries = dictionary["OrderedPizzas"]?.arrayValue ?? []
    let pizzas = try ModelDecoder().decodeArray(of: Pizza.self, from: dictionaries)
    return (user, pizzas)
}
