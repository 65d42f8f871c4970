import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting

extension DemoSteps {
    /// Seeds 000/001 `.both` and seed 003's offline mode, against a server of its own that it stops.
    func cacheBothAndOffline(transport: any HTTPTransport) async throws {
        narrator.step("The response cache: .both gives the cached answer, then the network's; offline mode serves the cache")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ImageStoreServer.instrumented()
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = ResponseCache(directory: directory)
        let client = APIClient(configuration: configuration, transport: transport)
        _ = try await client.send(Request<Data>(.put, "documents/menu", body: .data(Data("Catuperoni, Calabresa".utf8), contentType: "text/plain")))
        let menu = Request<String>(.get, "documents/menu", cache: .both, serializer: .string)
        var first: [Response<String>] = []
        for try await response in client.responses(menu) { first.append(response) }
        narrator.say("First GET with .both: \(Self.describe(first)) (nothing cached yet).")
        var second: [Response<String>] = []
        for try await response in client.responses(menu) { second.append(response) }
        narrator.say("Second GET with .both: \(Self.describe(second)).")
        let notModified = server.notModifiedCount("GET", "/documents/{name}")
        narrator.say("The network leg was conditional (If-None-Match): the server answered 304 \(notModified) time(s), the body came from the cache.")
        try demand(first.map(\.source) == [.network] && second.map(\.source) == [.cache, .network] && notModified == 1,
                   "expected one network response, then cache + network with a 304")
        await server.stop()
        narrator.say("Server stopped. GET with offline mode on:")
        let offline = try await client.send(menu.cache(.networkOnly).offlineMode())
        narrator.say("→ \"\(offline.value)\" from .\(offline.source) (fromCache: \(offline.fromCache)).")
        try demand(offline.source == .offlineCache, "expected the cached answer while offline")
        do {
            let error = try await failure(else: "a request without offline mode succeeded with the server stopped") { _ = try await client.send(menu.cache(.networkOnly)) }
            narrator.say("Without offline mode → .\(error.classification): \(error.userMessage)")
        }
    }

    private static func describe(_ responses: [Response<String>]) -> String {
        responses.map { "\($0.fromCache ? "cache" : "network") \"\($0.value)\"" }.joined(separator: ", then ")
    }
}
