@testable import CourierExamples
import Courier
import Foundation

/// The seed examples: one suite per seed document, one test per example or documented behaviour,
/// named after the seed's section (`swift test --filter SeedExamples`).
enum SeedExamples {}

/// What the seed documents share: the BaseModel JSON of seeds 000 and 002 and its models, written
/// as Courier models (structs, `Decodable`, no `CodingKeys`).
enum SeedFixtures {
    /// The JSON of the seeds' "Base Model" section, byte for byte but for the e-mail's domain.
    static let userJSON = #"""
    {
        "id": "123",
        "user_name": "fulana22k",
        "email": "fulana22k@example.com",
        "is_first_login": true,
        "register_date": "2015/08/21 15:45:45",
        "favorite_pizza": {
            "pizza_id": 5,
            "name": "Catuperoni",
            "number_of_ingredients": null
        },
        "OrderedPizzas": [{
            "pizza_id": 5,
            "name": "Catuperoni",
            "number_of_ingredients": null
        }, {
            "pizza_id": 10,
            "name": "Calabresa",
            "number_of_ingredients": null
        }]
    }
    """#

    /// The seed's `Pizza : BaseModel` and `User : BaseModel`, as the migration article shows them
    /// (compiled in `CourierExamples`).
    typealias Pizza = CourierExamples.Pizza
    typealias User = CourierExamples.User

    /// 2015-08-21 15:45:45 UTC, the seed's `register_date` read in ``ModelDecoder``'s default time zone.
    static let registerDate = Date(timeIntervalSince1970: 1_440_171_945)

    /// Stores `body` on the sample server as the document `name` (served back by `GET documents/name`).
    static func put(_ body: String, as name: String, contentType: String = "application/json", on client: APIClient) async throws {
        _ = try await client.send(Request<Data>(.put, "documents/\(name)", body: .data(Data(body.utf8), contentType: contentType)))
    }

    /// The seed user, as the sample server serves it: `GET documents/seed-user`.
    static func serveUser(on client: APIClient) async throws -> Request<User> {
        try await put(userJSON, as: "seed-user", on: client)
        return Request<User>(.get, "documents/seed-user")
    }

    /// A PNG's signature and a few bytes: enough for the image store, which checks the signature.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 64))
}

/// Collects what callbacks hand over, for a test to wait on: `record` from the callback, `next`
/// in the test.
final class CallbackRecorder<Element: Sendable>: Sendable {
    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    /// Records one call.
    func record(_ element: Element) { continuation.yield(element) }

    /// The next `count` calls, in the order they were made.
    func next(_ count: Int = 1) async -> [Element] {
        var calls: [Element] = []
        for await element in stream {
            calls.append(element)
            if calls.count == count { break }
        }
        return calls
    }
}
