import Courier
import CourierStore
import Foundation
import ImageStoreServer
import ImageStoreTesting

extension DemoSteps {
    /// Seed 004's CoreDataHelper: `GET /images` imported into a local store, the server stopped,
    /// and the images listed from the store.
    func storeImportAndOffline(transport: any HTTPTransport) async throws {
        narrator.step("CourierStore: GET /images imported into SQLite; with the server gone, the list comes from the store")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ImageStoreServer.instrumented()
        let client = APIClient(configuration: ClientConfiguration(baseURL: server.baseURL), transport: transport)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(count: 64)
        for title in ["Sunrise", "Noon", "Sunset"] {
            _ = try await client.send(Request<JSONValue>(.post, "images", body: .multipart([.text("title", title), .data("image", png, fileName: "\(title).png")])))
        }
        let store = try CourierStore(path: directory.appendingPathComponent("images.sqlite"))
        let first = try await client.send(Request<Data>(.get, "images"), into: store, as: StoredImage.self, root: "images")
        narrator.say("GET /images → store: \(first).")
        let again = try await client.send(Request<Data>(.get, "images"), into: store, as: StoredImage.self, root: "images")
        narrator.say("The same GET again: \(again) (nothing rewritten).")
        try demand(first.inserted == 3 && again.unchanged == 3 && !again.changedSomething, "expected 3 inserted, then 3 unchanged")
        await server.stop()
        narrator.say("Server stopped.")
        do {
            let error = try await failure(else: "the request succeeded with the server stopped") { _ = try await client.send(Request<Data>(.get, "images"), into: store, as: StoredImage.self, root: "images") }
            narrator.say("GET /images → .\(error.classification); the store still has:")
        }
        let images = try await store.models(StoredImage.self)
        for image in images { narrator.say("  #\(image.uid) \(image.title) (\(image.mimeType), \(image.size) bytes)") }
        try demand(images.map(\.title) == ["Sunrise", "Noon", "Sunset"], "the store lost images: \(images.map(\.title))")
    }
}
