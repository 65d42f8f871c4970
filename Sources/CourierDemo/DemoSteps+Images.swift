import Courier
import Foundation

extension DemoSteps {
    /// Seed 004's flow against the image store: upload with a progress bar, read back as JSON and
    /// XML, patch, delete, and the classified 404 that follows.
    func imageStoreFlow() async throws {
        narrator.step("Seed 004's image store: upload (multipart, streamed from a file), get as JSON and XML, patch, delete")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("sunset.png")
        // 1.5 MB after the PNG signature, bytes that repeat every 256: one period appended over and
        // over (a `map` over 1.5 million indices takes more than a second in a debug build).
        let period = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        for start in stride(from: 0, to: 1_500_000, by: period.count) { png.append(period.prefix(1_500_000 - start)) }
        try png.write(to: file)
        let bar = ProgressBar(narrator: narrator)
        let upload = Request<JSONValue>(.post, "images", body: .multipart([
            .text("title", "Sunset"), .text("description", "Over the bay"), .file("image", file),
        ])).onUploadProgress { bar.update($0) }
        let created = try await client.send(upload)
        guard let id = created.value["id"]?.intValue else { throw DemoFailure("the upload answered without an id: \(created.value)") }
        narrator.say("POST /images → \(created.statusCode), id \(id), \(created.value["mimeType"]?.stringValue ?? "?"), \(created.value["size"]?.intValue ?? 0) bytes.")
        try demand(created.statusCode == 201 && created.value["size"]?.intValue == png.count, "the stored image differs from the file")

        let json = try await client.send(Request<JSONValue>(.get, "images/\(id)"))
        narrator.say("GET /images/\(id) as JSON: title \"\(json.value["title"]?.stringValue ?? "?")\", file \(json.value["fileName"]?.stringValue ?? "?").")
        let xml = try await client.send(Request(.get, "images/\(id)", query: ["type": "xml"], serializer: .xml))
        narrator.say("GET /images/\(id)?type=xml: <\(xml.value.name)> with <title>\(xml.value["title"]?.text ?? "?")</title>.")
        let bytes = try await client.send(Request<Data>(.get, "images/\(id)/data"))
        try demand(bytes.value == png, "the downloaded image differs from the uploaded one")
        narrator.say("GET /images/\(id)/data: all \(bytes.value.count) bytes match the file.")

        let patched = try await client.send(Request<JSONValue>(.patch, "images/\(id)", body: .json(["title": "Dusk"])))
        narrator.say("PATCH /images/\(id) {\"title\": \"Dusk\"} → title \"\(patched.value["title"]?.stringValue ?? "?")\".")
        try demand(patched.value["title"]?.stringValue == "Dusk", "the patch did not change the title")
        _ = try await client.send(Request<JSONValue>(.delete, "images/\(id)"))
        narrator.say("DELETE /images/\(id) → done.")
        do {
            let error = try await failure(else: "the deleted image is still there") { _ = try await client.send(Request<JSONValue>(.get, "images/\(id)")) }
            try demand(error.classification == .notFound, "expected a 404, got \(error.classification)")
            narrator.say("GET /images/\(id) → .\(error.classification): \(error.userMessage)")
        }
    }
}
