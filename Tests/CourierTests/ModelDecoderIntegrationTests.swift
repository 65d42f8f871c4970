import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Requests decode with `ModelDecoder` by default; `JSONDecoder` per client or per request.
@Suite struct ModelDecoderIntegrationTests {
    struct User: Decodable, Sendable {
        struct Pizza: Decodable, Sendable {
            var pizzaID: Int
            var numberOfIngredients: Int?
        }
        var uid: Int
        var userName: String
        var registerDate: Date
        var orderedPizzas: [Pizza]
    }

    @Test(arguments: TransportKind.allCases)
    func theDefaultDecoderAppliesTheSeedRules(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let user = try await server.client(transport).send(Request<User>(.get, "sample")).value
                #expect(user.uid == 123)
                #expect(user.userName == "fulana22k")
                #expect(user.registerDate == Date(timeIntervalSince1970: 1_440_171_945))
                #expect(user.orderedPizzas.map(\.pizzaID) == [5, 10])
                #expect(user.orderedPizzas.map(\.numberOfIngredients) == [nil, 3])
            }
        }
    }

    @Test func foundationsDecoderPerClientAndPerRequest() async throws {
        try await withServer { server in
            let strict = server.client(URLSessionTransport()) { $0.decoder = JSONDecoder() }
            let error = await #expect(throws: CourierError.self) { try await strict.send(Request<User>(.get, "sample")) }
            #expect(error?.kind == .decodingFailed)
            var request = Request<User>(.get, "sample")
            request.decoder = JSONDecoder()
            let perRequest = await #expect(throws: CourierError.self) { try await server.client(URLSessionTransport()).send(request) }
            #expect(perRequest?.kind == .decodingFailed)
        }
    }

    @Test func decodingFailuresCarryTheKeyPath() async throws {
        struct Strict: Decodable, Sendable {
            struct Pizza: Decodable, Sendable { var name: Int }
            var orderedPizzas: [Pizza]
        }
        try await withServer { server in
            let error = await #expect(throws: CourierError.self) { try await server.client(URLSessionTransport()).send(Request<Strict>(.get, "sample")) }
            #expect(error?.keyPath == "orderedPizzas[0].name")
            #expect(error?.classification == .decodingFailed(keyPath: "orderedPizzas[0].name"))
        }
    }
}
