import Courier
import CourierStore
import Foundation
import ImageStoreServer
import ImageStoreTesting

extension DemoSteps {
    /// The outbox: edits made while the server is down are kept (the store shows them at once),
    /// and reach the server by themselves when it comes back.
    func outboxWhileServerDown(transport: any HTTPTransport) async throws {
        narrator.step("Outbox: edits made with the server down reach it when it comes back")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverFile = directory.appendingPathComponent("server.sqlite").path
        let server = try await ImageStoreServer.instrumented(ServerConfiguration(databasePath: serverFile))
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.errorPresenter = nil
        let client = APIClient(configuration: configuration, transport: transport)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(count: 64)
        let store = try CourierStore(path: directory.appendingPathComponent("app.sqlite"))
        let created = try await client.send(Request<Data>(.post, "images", body: .multipart([.text("title", "Draft"), .data("image", png, fileName: "draft.png")])))
        try await store.import(StoredImage.self, from: created.data)
        let image = try await store.models(StoredImage.self).first.orThrow("the upload was not imported")
        let outbox = try Outbox(store: store, client: client, baseDelay: .seconds(30))
        outbox.start()
        defer { outbox.stop() }

        let port = server.port
        // The port stays bound while the server is down, so nothing else can take it before the return.
        try await server.stopHoldingPort()
        defer { server.releasePort() }
        narrator.say("Server stopped. The app renames image #\(image.uid) and writes a note:")
        var renamed = image
        renamed.title = "Final"
        try await outbox.enqueue(
            Request<Data>(.patch, "images/\(image.uid)", body: ["title": "Final"]), scope: "image-\(image.uid)", applying: [.save(renamed)])
        try await outbox.enqueue(Request<Data>(.put, "documents/notes", body: .data(Data("written offline".utf8), contentType: "text/plain")))
        var waiting: [OutboxEntry] = []
        for try await entries in outbox.observe() where entries.count == 2 && entries.allSatisfy({ $0.nextAttempt != nil }) {
            waiting = entries
            break
        }
        for entry in waiting {
            narrator.say("  #\(entry.id) \(entry.method) \(entry.url.path): waiting, attempt \(entry.attempts) failed (\(entry.lastError ?? "")).")
        }
        let shown = try await store.model(StoredImage.self, uid: image.uid)
        narrator.say("The store already shows the new title: \"\(shown?.title ?? "")\".")
        try demand(shown?.title == "Final", "the optimistic rename is not in the store")

        server.releasePort()
        let back = try await ImageStoreServer.instrumented(ServerConfiguration(port: port, databasePath: serverFile))
        do {
            narrator.say("Server back on port \(port). The app's next request is answered, so the outbox sends at once (its backoff is 30 s):")
            _ = try await client.send(Request<Data>(.get, "images"))
            try await within(.seconds(20), "the outbox did not send the edits within 20 s of the server's return") {
                for try await entries in outbox.observe() where entries.isEmpty { break }
            }
            let title = try await client.send(Request<JSONValue>(.get, "images/\(image.uid)")).value["title"]?.stringValue
            let note = try await client.send(Request<String>(.get, "documents/notes", serializer: .string)).value
            narrator.say("GET /images/\(image.uid) → title \"\(title ?? "")\"; GET /documents/notes → \"\(note)\"; the outbox is empty.")
            try demand(title == "Final" && note == "written offline", "the server did not get the offline edits")
            await back.stop()
        } catch {
            await back.stop()
            throw error
        }
    }
}
