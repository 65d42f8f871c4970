import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The README's examples compile (they stand in ReadmeExamples.swift) and run.
@Suite struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everySwiftBlockOfTheReadmeIsCompiled() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        // The generated client's example stands in the target that generates the client.
        let examples = try ["Tests/CourierTests/ReadmeExamples.swift", "Tests/CourierOpenAPITests/ReadmeExample.swift"]
            .map { try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count >= 4)
        for block in blocks where !block.hasPrefix("// Package.swift") {
            #expect(examples.contains(block), "README block not in ReadmeExamples.swift:\n\(block)")
        }
    }

    @Test func cassetteExampleRecordsThenReplaysWithoutTheKey() async throws {
        let fixtures = TemporaryDirectory()
        defer { fixtures.remove() }
        let baseURL = try await withServer { server in
            _ = try await recordedImages(baseURL: server.baseURL, fixtures: fixtures.url)
            return server.baseURL
        }
        let text = try String(contentsOf: fixtures.url.appendingPathComponent("images.har"), encoding: .utf8)
        #expect(text.contains("api_key=REDACTED") && !text.contains("k-5f3e9a1c"))
        _ = try await recordedImages(baseURL: baseURL, fixtures: fixtures.url)  // the server is stopped
    }

    @Test func quickStartRunsAgainstTheSampleServer() async throws {
        try await withServer { server in
            try await quickStart(baseURL: server.baseURL)
            #expect(server.requestCount("GET", "/sample") == 1)
            #expect(server.requestCount("POST", "/echo/**") == 1)
            #expect(server.requestCount("GET", "/status/{code}") == 1)
        }
    }

    @Test func storeExampleImportsAndObserves() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.cache = nil }
            try await StoreFixtures.upload(["Noon", "Dusk"], with: client)
            let photos = try await syncPhotos(client: client, directory: directory.url)
            #expect(photos.map(\.title) == ["Dusk", "Noon"])
            #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("public.sqlite").path))
        }
    }

    @Test func downloadExampleRuns() async throws {
        try await withServer { server in
            let task = download(with: APIClient(baseURL: server.baseURL, transport: URLSessionTransport()))
            await task.waitUntilFinished()
            #expect(!task.isCancelled && task.isFinished)
        }
    }

    @Test func groupExampleBuildsTheDocumentedRequests() throws {
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!)
        let list = try client.transportRequest(for: BillingAPI.invoices(email: "ana@example.com"))
        #expect(list.url.absoluteString == "https://billing.example.com/v2/invoices?email=ana%40example.com&page=1")
        let pay = try client.transportRequest(for: BillingAPI.pay(Invoice(id: 7), email: "ana@example.com"))
        #expect(pay.url.absoluteString == "https://billing.example.com/v2/invoices/7/payments")
        #expect(String(decoding: pay.body ?? Data(), as: UTF8.self) == #"{"email":"ana@example.com","method":"card"}"#)
        #expect(pay.headers["X-Client"] == "ios")
    }

    @Test func errorExampleRuns() async throws {
        try await withServer { server in
            let client = APIClient(configuration: {
                var configuration = ClientConfiguration(baseURL: server.baseURL, apiPath: "errors/422")
                configuration.delegate = APIHooks()
                return configuration
            }(), transport: URLSessionTransport())
            // POST /errors/422/users does not exist: the example reports the 404's plain sentence.
            #expect(await signUp(SignUp(email: "a@example.com", password: "x"), with: client) == "What you asked for was not found.")
            let offline = APIClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: URLSessionTransport())
            #expect(await signUp(SignUp(email: "a@example.com", password: "x"), with: offline) == "Try again when you are online.")
        }
    }

    @Test func authenticationExampleSignsInAndOut() async throws {
        try await withServer { server in
            let client = try await makeSignedInClient(baseURL: server.baseURL)
            #expect(client.isSignedIn)
            defer { try? client.logout() }
            let me = try await client.send(Request<JSONValue>(.get, "me"))
            #expect(me.value["data"]?["email"]?.stringValue == "demo@example.com")
        }
    }

    @Test func mappingExampleKeepsThePayloadKeys() throws {
        let json = try renamePizza(payload: Data(#"{"id":5,"name":"Catuperoni","number_of_ingredients":null}"#.utf8))
        #expect(json == .object(["id": .int(5), "name": .string("Calabresa"), "number_of_ingredients": .null]))
    }

    @Test func cacheExampleShowsTheCachedResponseFirst() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            let shown = Locked<[Bool]>([])
            try await showProfile(baseURL: server.baseURL, cachesURL: directory.url) { _, fromCache in shown.withLock { $0.append(fromCache) } }
            try await showProfile(baseURL: server.baseURL, cachesURL: directory.url) { _, fromCache in shown.withLock { $0.append(fromCache) } }
            #expect(shown.withLock { $0 } == [false, true, false])
            #expect(server.requestCount("GET", "/sample") == 2)  // .cacheOnly never asked the network
        }
    }

    @Test func uploadExampleUploadsPatchesAndDownloads() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let photo = directory.url.appendingPathComponent("sunset.png")
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 5_000)
        try png.write(to: photo)
        let saved = directory.url.appendingPathComponent("copy.png")
        try await withServer { server in
            let image = try await uploadAndFetch(client: server.client(URLSessionTransport()), photo: photo, saveTo: saved)
            #expect(image.title == "Sunset" && image.mimeType == "image/png")
            #expect(try Data(contentsOf: saved) == png)
        }
    }

    @Test func transportExampleBuilds() async throws {
        let (client, transport) = makeServerSideClient()
        #expect(client.configuration.apiPath == "v1")
        try await transport.shutdown()
    }
}
