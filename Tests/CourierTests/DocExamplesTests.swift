@testable import CourierExamples
import Courier
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The code the DocC articles show (the `CourierExamples` target) does what the articles say,
/// against the sample server.
@Suite(.timeLimit(.minutes(5)))
struct DocExamplesTests {
    @Test func cacheOptionsAnswerFromWhereTheArticleSays() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory.created()
            defer { directory.remove() }
            let cache = ResponseCache(directory: directory.url)
            let client = server.client(URLSessionTransport()) { $0.cache = cache }
            try await SeedFixtures.put(#"{"pizzas": ["Catuperoni"]}"#, as: "menu", on: client)
            #expect(try await menuSources(client: client) == [.network, .cache, .network])
            #expect(server.requestCount("GET", "/documents/{name}") == 2)
            let calls = CallbackRecorder<Bool>()
            showMenuTwice(client: client) { _, fromCache in calls.record(fromCache) }
            #expect(await calls.next(2) == [true, false])
            cache.flush()
            let stored = directory.files.filter { $0.hasSuffix(".apicache") }.count
            #expect(stored == 1, "the menu")
            _ = try await logIn(client: client)
            cache.flush()
            #expect(directory.files.filter { $0.hasSuffix(".apicache") }.count == stored, "a login was stored")
        }
    }

    @Test func theHTTPFreshnessClientRevalidatesWhenTheRequestSaysNoCache() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory.created()
            defer { directory.remove() }
            let client = catalogueClient(baseURL: server.baseURL, cache: ResponseCache(directory: directory.url))
            try await SeedFixtures.put(#"{"pizzas": ["Catuperoni"]}"#, as: "menu", on: client)
            let menu = Request<JSONValue>(.get, "documents/menu")
            #expect(try await client.send(menu).source == .network)
            let current = try await currentMenu(client: client)
            #expect(current.source == .network && current.value["pizzas"]?[0] == .string("Catuperoni"))
            // The second request was a revalidation: the server answered 304.
            #expect(server.requestCount("GET", "/documents/{name}") == 2)
            #expect(server.notModifiedCount("GET", "/documents/{name}") == 1)
        }
    }

    @Test func aCassetteRecordsOnceAndReplaysWithTheServerStopped() async throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let baseURL = try await withServer { server in
            #expect(try await sampleUserName(baseURL: server.baseURL, cassettes: folder.url) == "fulana22k")
            #expect(server.requestCount("GET", "/sample") == 1)
            let client = server.client(URLSessionTransport())
            let cassette = try redactedCassette(file: folder.url.appendingPathComponent("redacted.har"), client: client)
            #expect(cassette.mode == .once)
            return server.baseURL
        }
        #expect(try await sampleUserName(baseURL: baseURL, cassettes: folder.url) == "fulana22k", "replayed")
        let client = try replayOnlyClient(file: folder.url.appendingPathComponent("sample.har"), baseURL: baseURL)
        for _ in 0..<2 { _ = try await client.send(Request<JSONValue>(.get, "sample")) }
        let message = await missMessage(client: client)
        #expect(message?.contains("GET \(baseURL.absoluteString)/not-recorded") == true, "\(message ?? "")")
    }

    @Test func signingInStoresTheHeadersAndSigningOutForgetsThem() async throws {
        try await withServer { server in
            let folder = try TemporaryDirectory.created()
            defer { folder.remove() }
            let (signedIn, signedOut) = try await signInAndOut(baseURL: server.baseURL, credentialsFolder: folder.url)
            #expect(signedIn == "demo@example.com")
            #expect(signedOut == nil)
        }
    }

    @Test func theSeedMigrationsDoWhatTheArticlesSay() async throws {
        try await withServer { server in
            try await withServer { other in
                let client = server.client(URLSessionTransport())
                #expect(try await usersPath(baseURL: server.baseURL) == "/echo/api/v1/users")
                let created = CallbackRecorder<(JSONValue?, CourierError?, Bool)>()
                createUser(client: client) { created.record(($0, $1, $2)) }
                let call = try #require(await created.next().first)
                #expect(call.0 != nil && call.1 == nil && !call.2)
                let upload = try await uploadPhoto(SeedFixtures.png, client: client, otherBaseURL: other.baseURL)
                #expect(upload.path == "/echo/upload" && other.requestCount("POST", "/echo/**") == 1)
                let cancelled = CallbackRecorder<CourierError?>()
                let task = startAndCancel(client: client) { cancelled.record($0) }
                let error = try #require(await cancelled.next().first ?? nil)
                #expect(error.isCancelled && error.requestID == task.id)
                try await SeedFixtures.put(#"[1, 2]"#, as: "list", on: client)
                try await SeedFixtures.put("<html>hi</html>", as: "page", contentType: "text/html", on: client)
                #expect(try await describe(path: "sample", client: client) == "user fulana22k")
                #expect(try await describe(path: "documents/list", client: client) == "2 items")
                #expect(try await describe(path: "documents/page", client: client).hasPrefix("<html>"))
                let (update, show) = try await updateProfile(client: client)
                #expect(update.bodyText == #"{"email":"ana@example.com","name":"Ana"}"#)
                #expect(show.query == "email=ana%40example.com")
                let password = try await changePassword(client: client, authenticationURL: other.baseURL)
                #expect(password.path == "/echo/api/v1/password" && password.bodyText == #"{"email":"ana@example.com","new":"s3cret"}"#)
                let reset = CallbackRecorder<Result<Response<Echo>, CourierError>>()
                let id = resetPassword(client: client) { reset.record($0) }
                let answered = try #require(await reset.next().first).get()
                #expect(answered.requestID == id && answered.value.path == "/echo/v2/users/reset-password")
            }
        }
    }

    @Test func offlineModeAnswersFromTheCacheWhenTheServerIsGone() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let cache = ResponseCache(directory: directory.url)
        let server = try await ImageStoreServer.instrumented(.holdable())
        let client = server.client(URLSessionTransport()) { $0.cache = cache }
        try await SeedFixtures.put(#"{"hobbies":["kitesurfing"]}"#, as: "hobbies", on: client)
        let online = try await hobbies(client: client)
        #expect(online.names == ["kitesurfing"] && online.source == .network)
        try await server.stopHoldingPort()
        defer { server.releasePort() }
        let offline = try await hobbies(client: client)
        #expect(offline.names == ["kitesurfing"] && offline.source == .offlineCache)
    }

    @Test func callbacksRunOnTheQueuesTheArticleNames() async throws {
        try await withServer { server in
            let key = DispatchSpecificKey<String>()
            let clientQueue = DispatchQueue(label: "client")
            clientQueue.setSpecific(key: key, value: "client")
            let given = DispatchQueue(label: "given")
            given.setSpecific(key: key, value: "given")
            let client = server.client(URLSessionTransport()) { $0.callbackQueue = clientQueue }
            let queues = CallbackRecorder<String?>()
            loadOnQueues(
                client: client, queue: given, onClientQueue: { queues.record("client:" + (DispatchQueue.getSpecific(key: key) ?? "?")) },
                onGivenQueue: { queues.record("given:" + (DispatchQueue.getSpecific(key: key) ?? "?")) })
            #expect(Set(await queues.next(2)) == ["client:client", "given:given"])
        }
    }

    @Test func hooksTurnA200IntoAnErrorAndSeeEveryFailure() async throws {
        try await withServer { server in
            let reported = CallbackRecorder<ErrorClassification>()
            let client = server.client(URLSessionTransport()) { $0.delegate = Hooks { reported.record($0) } }
            try await SeedFixtures.put(#"{"error_code": 17, "error_message": "no"}"#, as: "failing", on: client)
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "documents/failing")) }
            #expect((error?.underlyingError as? CustomAPIError)?.code == 17)
            #expect(await reported.next() == [.other])
        }
    }

    @Test func imagesAndErrorsOfTheImageStore() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let shown = CallbackRecorder<String>()
            loadMissingImage(client: client) { shown.record($0) }
            #expect(await shown.next() == ["Image 0 was not found."])
            let showing = makeClientShowing422Bodies(baseURL: server.baseURL)
            let invalid = await #expect(throws: CourierError.self) { try await showing.send(Request<JSONValue>(.get, "errors/422")) }
            #expect(invalid?.userMessage == invalid?.bodyText)
            try await SeedFixtures.put(#"{"object": {"id": 7, "title": "Dusk", "mime_type": "image/png"}}"#, as: "object-json", on: client)
            try await SeedFixtures.put(
                "<root><object><id>7</id><title>Dusk</title><mime_type>image/png</mime_type></object></root>",
                as: "object-xml", contentType: "application/xml", on: client)
            for name in ["object-json", "object-xml"] {
                let image = try await loadObject(named: name, client: client)
                #expect(image.title == "Dusk" && image.uid == 7, "\(name)")
            }
            _ = try await client.send(Request<JSONValue>(.post, "images", body: .multipart([.text("title", "Dawn"), .data("image", SeedFixtures.png, fileName: "dawn.png")])))
            #expect(try await storeImages(client: client) == ["Dawn"])
            let kite = try await uploadKite(photo: SeedFixtures.png, client: client)
            #expect(kite.title == "Kite" && kite.mimeType == "image/png")
        }
    }

    @Test func theSeedUserDecodesWithItsPizzas() throws {
        let (user, pizzas) = try decodeUser(from: Data(SeedFixtures.userJSON.utf8))
        #expect(user.userName == "fulana22k" && user.orderedPizzas.count == 2)
        #expect(pizzas.map(\.pizzaID) == [5, 10])
    }

    @Test func modelMappingAndParameters() async throws {
        #expect(try registerDate() == Date(timeIntervalSince1970: 1_440_115_200))
        let dictionaries = try #require(JSONValue.parse(Data(#"[{"pizza_id": 5, "name": "Catuperoni"}, {"pizzaID": "10", "name": "Calabresa", "number_of_ingredients": 3}]"#.utf8)).arrayValue)
        #expect(try pizzas(from: dictionaries).map(\.pizzaID) == [5, 10])
        let error = #expect(throws: ModelDecodingError.self) { try pizzas(from: dictionaries + [.object(["name": .string("sem id")])]) }
        #expect(error?.keyPath == "[2].pizzaID")
        try await withServer { server in
            let echo = try await search(client: server.client(URLSessionTransport()))
            #expect(echo.query == "page=2" && echo.bodyText == #"{"q":"pizza"}"#)
        }
    }
}
