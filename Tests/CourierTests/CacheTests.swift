import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The cache options, offline mode, revalidation, invalidation and per-user scope, against the
/// sample server, counting what reaches it.
@Suite struct CacheTests {
    static let route = "/documents/{name}"

    func client(_ server: ImageStoreServer, _ transport: any HTTPTransport, _ cache: ResponseCache?,
                configure: (inout ClientConfiguration) -> Void = { _ in }) -> APIClient {
        server.client(transport) {
            $0.cache = cache
            configure(&$0)
        }
    }

    func document(_ option: CacheOption, name: String = "a") -> Request<String> {
        Request(.get, "documents/\(name)", cache: option, serializer: .string)
    }

    @Test(arguments: TransportKind.allCases)
    func cacheOnlyUsesTheNetworkOnlyWithoutAnEntry(kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                try await kind.with { transport in
                    let client = client(server, transport, cache)
                    try await client.putDocument("a", "first")
                    let miss = try await client.send(document(.cacheOnly))
                    #expect(miss.source == .network && miss.value == "first")
                    #expect(server.requestCount("GET", Self.route) == 1)
                    let hit = try await client.send(document(.cacheOnly))
                    #expect(hit.source == .cache && hit.fromCache && hit.value == "first" && hit.statusCode == 200)
                    #expect(hit.headers["Content-Type"] == "text/plain")
                    #expect(server.requestCount("GET", Self.route) == 1)
                }
            }
        }
    }

    /// The options are values with static members (so more can come without breaking a `switch`),
    /// distinct, and named as written in code.
    @Test func cacheOptionsAreDistinctNamedValues() {
        let options: [CacheOption] = [.cacheOnly, .networkOnly, .both]
        #expect(Set(options).count == 3)
        #expect(options.map(\.description) == ["cacheOnly", "networkOnly", "both"])
        func reads(_ option: CacheOption) -> Bool {
            switch option {
            case .networkOnly: false
            default: true
            }
        }
        #expect(options.map(reads) == [true, false, true])
    }

    @Test func networkOnlyIgnoresTheCacheCompletely() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = client(server, URLSessionTransport(), cache)
                try await client.putDocument("a", "first")
                let plain = try await client.send(document(.networkOnly))
                #expect(plain.source == .network)
                #expect(client.cachedResponse(for: document(.networkOnly)) == nil)
                _ = try await client.send(document(.cacheOnly))
                let again = try await client.send(document(.networkOnly))
                #expect(again.source == .network)
                #expect(server.requestCount("GET", Self.route) == 3)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func bothGivesTheCachedResponseThenTheNetworks(kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                try await kind.with { transport in
                    let client = client(server, transport, cache)
                    try await client.putDocument("a", "v1")
                    var first: [Response<String>] = []
                    for try await response in client.responses(document(.both)) { first.append(response) }
                    #expect(first.map(\.source) == [.network])
                    try await server.client(transport).putDocument("a", "v2")  // behind the cache's back
                    var second: [Response<String>] = []
                    for try await response in client.responses(document(.both)) { second.append(response) }
                    #expect(second.map(\.source) == [.cache, .network])
                    #expect(second.map(\.value) == ["v1", "v2"])
                    // The callback API calls back twice, cache first.
                    let delivered = Locked<[(Bool, String)]>([])
                    let task = client.request(document(.both)) { result in
                        if case .success(let response) = result { delivered.withLock { $0.append((response.fromCache, response.value)) } }
                    }
                    await task.waitUntilFinished()
                    await withCheckedContinuation { done in client.configuration.callbackQueue.async { done.resume() } }
                    #expect(delivered.withLock { $0.map(\.0) } == [true, false])
                    #expect(delivered.withLock { $0.map(\.1) } == ["v2", "v2"])
                    // `send` returns the network's.
                    #expect(try await client.send(document(.both)).source == .network)
                }
            }
        }
    }

    @Test func offlineModeAnswersFromTheCacheWhenTheServerIsGone() async throws {
        try await withTemporaryCache { cache, _ in
            let server = try await ImageStoreServer.instrumented(.holdable())
            let client = client(server, URLSessionTransport(), cache)
            try await client.putDocument("a", "kept")
            _ = try await client.send(document(.cacheOnly))
            try await server.stopHoldingPort()
            defer { server.releasePort() }
            let offline = try await client.send(document(.networkOnly).offlineMode())
            #expect(offline.source == .offlineCache && offline.fromCache && offline.value == "kept")
            let failure = await #expect(throws: CourierError.self) { try await client.send(document(.networkOnly)) }
            #expect(failure?.classification == .cannotConnect)
            let perClient = self.client(server, URLSessionTransport(), cache) { $0.offlineMode = true }
            #expect(try await perClient.send(document(.both)).source == .offlineCache)
            #expect(try await perClient.send(document(.networkOnly)).source == .offlineCache)
            await #expect(throws: CourierError.self) { try await perClient.send(document(.networkOnly).offlineMode(false)) }
            await #expect(throws: CourierError.self) { try await perClient.send(document(.networkOnly, name: "never-cached")) }
        }
    }

    @Test func aNotModifiedAnswerDeliversTheStoredBody() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = client(server, URLSessionTransport(), cache)
                try await client.putDocument("a", "same")
                let stored = try await client.send(document(.cacheOnly))
                #expect(stored.headers["ETag"] != nil && stored.headers["Last-Modified"] != nil)
                var responses: [Response<String>] = []
                for try await response in client.responses(document(.both)) { responses.append(response) }
                #expect(responses.map(\.source) == [.cache, .network])
                #expect(responses.last?.value == "same" && responses.last?.statusCode == 200)
                #expect(server.notModifiedCount("GET", Self.route) == 1)
                #expect(server.requestCount("GET", Self.route) == 2)
                // Only Last-Modified: the server compares dates.
                let sample = Request<JSONValue>(.get, "sample", cache: .both)
                _ = try await client.send(sample)
                let conditional = try await client.send(sample.header("If-None-Match", "\"other\""))
                #expect(conditional.statusCode == 200 && server.notModifiedCount("GET", "/sample") == 0)
                _ = try await client.send(sample)
                #expect(server.notModifiedCount("GET", "/sample") == 1)
            }
        }
    }

    /// An answer from the cache carries the header fields the network's carried (an API's own
    /// fields included), not only those the cache decides with; the connection's own are not kept.
    @Test(arguments: TransportKind.allCases)
    func aCachedAnswerCarriesTheHeadersThatWereStored(kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                try await kind.with { transport in
                    let client = client(server, transport, cache)
                    try await client.putDocument("a", "first")
                    try await client.putDocument("b", "second")
                    let network = try await client.send(document(.cacheOnly))
                    let cached = try await client.send(document(.cacheOnly))
                    #expect(network.source == .network && cached.source == .cache)
                    for name in ["X-Document-Version", "ETag", "Last-Modified", "Content-Type", "Content-Length"] {
                        #expect(cached.headers[name] != nil && cached.headers[name] == network.headers[name], "\(name)")
                    }
                    #expect(cached.headers["X-Document-Version"] == "1")
                    #expect(cached.headers["Connection"] == nil && cached.headers["Transfer-Encoding"] == nil)
                    let list = Request<JSONValue>(.get, "documents", cache: .cacheOnly)
                    _ = try await client.send(list)
                    let listed = try await client.send(list)
                    #expect(listed.source == .cache && listed.headers["X-Total-Count"] == "2")
                }
            }
        }
    }

    /// One URL, two representations chosen by `Accept` (`Vary: Accept`, as seed 004 asks for JSON
    /// and XML): each is stored and served to the requests it answers, side by side.
    @Test(arguments: TransportKind.allCases)
    func variantsOfOneURLAreStoredSideBySide(kind: TransportKind) async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                try await kind.with { transport in
                    let client = client(server, transport, cache)
                    func sample(_ accept: String) -> Request<String> {
                        Request<String>(.get, "sample", cache: .cacheOnly, serializer: .string).header("Accept", accept)
                    }
                    let json = try await client.send(sample("application/json"))
                    let xml = try await client.send(sample("application/xml"))
                    #expect(json.source == .network && xml.source == .network, "the JSON variant does not answer an XML request")
                    #expect(json.headers["Vary"] == "Accept" && json.value.hasPrefix("{") && xml.value.hasPrefix("<"))
                    for _ in 0..<2 {
                        let cachedJSON = try await client.send(sample("application/json"))
                        let cachedXML = try await client.send(sample("application/xml"))
                        #expect(cachedJSON.source == .cache && cachedJSON.value == json.value)
                        #expect(cachedXML.source == .cache && cachedXML.value == xml.value)
                        #expect(cachedXML.headers["Content-Type"]?.hasPrefix("application/xml") == true)
                    }
                    #expect(server.requestCount("GET", "/sample") == 2)
                    let other = try await client.send(sample("text/plain"))
                    #expect(other.source == .network && other.value == json.value)
                }
            }
        }
    }

    /// `Vary: *` is never answered from the cache; a `Vary` on a credential keeps only a digest of
    /// it in the entry, and another credential's request is not answered with it.
    @Test func varyStarIsNeverServedAndVariedCredentialsAreNotStored() async throws {
        try await withTemporaryCache { cache, directory in
            try await withServer { server in
                let client = client(server, URLSessionTransport(), cache)
                try await client.putDocument("a", "text")
                let star = Request<String>(.get, "documents/a", query: ["vary": "*"], cache: .cacheOnly, serializer: .string)
                #expect(try await client.send(star).source == .network)
                #expect(try await client.send(star).source == .network)
                let byToken = Request<String>(.get, "documents/a", query: ["vary": "Authorization"], cache: .cacheOnly, serializer: .string)
                #expect(try await client.send(byToken.header("Authorization", "Bearer first-secret")).source == .network)
                #expect(try await client.send(byToken.header("Authorization", "Bearer first-secret")).source == .cache)
                #expect(try await client.send(byToken.header("Authorization", "Bearer second-secret")).source == .network)
                #expect(try await client.send(byToken.header("Authorization", "Bearer first-secret")).source == .cache)
                #expect(try await client.send(byToken.header("Authorization", "Bearer second-secret")).source == .cache)
                for file in directory.files where file.hasSuffix(".apicache") {
                    let bytes = try Data(contentsOf: directory.url.appendingPathComponent(file))
                    #expect(bytes.range(of: Data("secret".utf8)) == nil, "\(file) holds a credential")
                }
            }
        }
    }

    /// A 304 updates the stored entry's header fields (RFC 9111 §3.2): the same body stored again
    /// on the server keeps its entity tag and changes its version, which the revalidated entry
    /// then carries.
    @Test func aNotModifiedAnswerUpdatesTheStoredHeaders() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = client(server, URLSessionTransport(), cache)
                try await client.putDocument("a", "same")
                let first = try await client.send(document(.cacheOnly))
                #expect(first.headers["X-Document-Version"] == "1")
                // Stored again by another client: this one's write would remove its cached reads.
                try await self.client(server, URLSessionTransport(), nil).putDocument("a", "same")
                let revalidated = try await client.send(document(.networkOnly).header("If-None-Match", first.headers["ETag"] ?? ""))
                #expect(revalidated.statusCode == 304, "the server keeps the entity tag of an unchanged body")
                var responses: [Response<String>] = []
                for try await response in client.responses(document(.both)) { responses.append(response) }
                #expect(responses.map(\.source) == [.cache, .network])
                #expect(responses.first?.headers["X-Document-Version"] == "1")
                #expect(responses.last?.headers["X-Document-Version"] == "2" && responses.last?.value == "same")
                #expect(server.notModifiedCount("GET", Self.route) == 2)
                let stored = try #require(client.cachedResponse(for: document(.cacheOnly)))
                #expect(stored.headers["X-Document-Version"] == "2" && stored.headers["ETag"] == first.headers["ETag"])
                #expect(try await client.send(document(.cacheOnly)).headers["X-Document-Version"] == "2")
            }
        }
    }

    /// A 304 that changes nothing the cache keeps does not rewrite the entry (under `.never`, which
    /// revalidates every time); under a rule that reads the storage time it does, to restart the age.
    @Test func aRevalidationRewritesTheEntryOnlyWhenItMatters() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let always = client(server, URLSessionTransport(), cache)
                try await always.putDocument("a", "same")
                _ = try await always.send(document(.cacheOnly))
                let key = try always.cacheKey(for: document(.both))
                let stored = try #require(cache.response(for: key)?.storedAt)
                #expect(try await always.send(document(.both)).value == "same")
                #expect(server.notModifiedCount("GET", Self.route) == 1)
                #expect(cache.response(for: key)?.storedAt == stored)
                let byAge = client(server, URLSessionTransport(), cache) { $0.cacheFreshness = .age(0) }
                #expect(try await byAge.send(document(.both)).value == "same")
                #expect(server.notModifiedCount("GET", Self.route) == 2)
                let restarted = try #require(cache.response(for: key)?.storedAt)
                #expect(restarted > stored)
            }
        }
    }

    @Test func freshEntriesAnswerWithoutARequest() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let byAge = client(server, URLSessionTransport(), cache) { $0.cacheFreshness = .age(3600) }
                try await byAge.putDocument("a", "fresh")
                _ = try await byAge.send(document(.both))
                #expect(try await byAge.send(document(.both)).source == .cache)
                #expect(server.requestCount("GET", Self.route) == 1)
                let byServer = client(server, URLSessionTransport(), cache) { $0.cacheFreshness = .serverMaxAge }
                let maxAge = Request<String>(.get, "documents/a", query: ["cacheControl": "max-age=3600"], cache: .both, serializer: .string)
                _ = try await byServer.send(maxAge)
                #expect(try await byServer.send(maxAge).source == .cache)
                let noMaxAge = try await byServer.send(document(.both))
                #expect(noMaxAge.source == .network)
                #expect(server.requestCount("GET", Self.route) == 3)
            }
        }
    }

    @Test func whatIsNeverStored() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = client(server, URLSessionTransport(), cache)
                try await client.putDocument("a", "x")
                let noStore = Request<String>(.get, "documents/a", query: ["cacheControl": "no-store"], cache: .cacheOnly, serializer: .string)
                _ = try await client.send(noStore)
                #expect(client.cachedResponse(for: noStore) == nil)
                let optedOut = document(.cacheOnly).notSavedInCache()
                _ = try await client.send(optedOut)
                #expect(client.cachedResponse(for: optedOut) == nil)
                let missing = document(.cacheOnly, name: "missing")
                await #expect(throws: CourierError.self) { try await client.send(missing) }
                #expect(client.cachedResponse(for: missing) == nil)
                #expect(cache.diskUsage == 0)
            }
        }
    }

    @Test func aWriteRemovesTheCachedReadsOfItsPath() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = client(server, URLSessionTransport(), cache)
                try await client.putDocument("a", "1")
                let list = Request<JSONValue>(.get, "documents", cache: .cacheOnly)
                let withQuery = Request<String>(.get, "documents/a", query: ["q": 1], cache: .cacheOnly, serializer: .string)
                for request in [document(.cacheOnly), withQuery] { _ = try await client.send(request) }
                _ = try await client.send(list)
                _ = try await client.send(Request<JSONValue>(.get, "sample", cache: .cacheOnly))
                try await client.putDocument("a", "2")
                #expect(client.cachedResponse(for: document(.cacheOnly)) == nil)
                #expect(client.cachedResponse(for: withQuery) == nil)
                #expect(client.cachedResponse(for: list) == nil)
                #expect(client.cachedResponse(for: Request<JSONValue>(.get, "sample")) != nil)
                #expect(try await client.send(document(.cacheOnly)).value == "2")

                let keeping = self.client(server, URLSessionTransport(), cache) { $0.invalidatesCacheOnWrite = false }
                try await keeping.putDocument("a", "3")
                #expect(try await keeping.send(document(.cacheOnly)).value == "2")

                // A write's Location names another path of the origin: its reads go too (RFC 9111 §4.4).
                try await client.putDocument("b", "old b")
                #expect(try await client.send(document(.cacheOnly, name: "b")).value == "old b")
                let moved = try await client.send(Request<JSONValue>(.post, "documents/a/move", query: ["to": "b"]))
                #expect(moved.statusCode == 201 && moved.headers["Location"] == "/documents/b")
                #expect(client.cachedResponse(for: document(.cacheOnly, name: "b")) == nil)
                #expect(try await client.send(document(.cacheOnly, name: "b")).value == "3")
            }
        }
    }

    @Test func oneUsersEntriesAreInvisibleToAnotherAndGoneAfterLogout() async throws {
        try await withTemporaryCache { cache, directory in
            try await withServer { server in
                func signedInClient(_ email: String, password: String) async throws -> APIClient {
                    let client = client(server, URLSessionTransport(), cache) {
                        $0.authenticationHeaders = AuthenticationTests.names
                        $0.credentialStore = CredentialStore.inMemory()
                    }
                    _ = try await AuthenticationTests.signIn(client, email: email, password: password)
                    return client
                }
                let signUp = client(server, URLSessionTransport(), nil) { $0.authenticationHeaders = AuthenticationTests.names; $0.credentialStore = CredentialStore.inMemory() }
                _ = try await signUp.send(Request<JSONValue>(.post, "auth", body: ["email": "bea@example.com", "password": "longenough"]))
                let ana = try await signedInClient("demo@example.com", password: "password")
                let bea = try await signedInClient("bea@example.com", password: "longenough")
                let me = Request<AuthenticationTests.SignedInUser>(.get, "me", cache: .cacheOnly)
                #expect(try await ana.send(me).value.data.email == "demo@example.com")
                #expect(try await ana.send(me).source == .cache)
                let beas = try await bea.send(me)
                #expect(beas.source == .network && beas.value.data.email == "bea@example.com")
                #expect(try ana.cacheKey(for: me) != bea.cacheKey(for: me))
                let anaScope = try ana.cacheKey(for: me).scope
                #expect(directory.files.contains { $0.hasPrefix(anaScope + "/") })
                // The answers carried rotated credentials; no entry keeps them.
                let stored = try #require(ana.cachedResponse(for: me))
                #expect(AuthenticationTests.names.allSatisfy { stored.headers[$0] == nil })
                for file in directory.files where file.hasSuffix(".apicache") {
                    let bytes = try Data(contentsOf: directory.url.appendingPathComponent(file))
                    for name in AuthenticationTests.names {
                        // A field name in the entry's header: its length (UInt64, little-endian), then its bytes.
                        let field = withUnsafeBytes(of: UInt64(name.utf8.count).littleEndian) { Data($0) } + Data(name.utf8)
                        #expect(bytes.range(of: field) == nil, "\(file) holds \(name)")
                    }
                }
                try ana.logout()
                #expect(!directory.files.contains { $0.hasPrefix(anaScope + "/") })
                #expect(try await bea.send(me).source == .cache)
                #expect(try ana.cacheKey(for: me).scope == CacheKey.publicScope)
            }
        }
    }

    /// Two caches on one directory, as two processes would have: an entry the second stores after
    /// the first has looked for it (and found nothing stored for the path, which a lookup answers
    /// without the key's digest) is found by the first, from disk.
    @Test func anEntryAnotherCacheStoredOnTheDirectoryIsFound() async throws {
        try await withTemporaryCache { first, directory in
            let second = ResponseCache(directory: directory.url)
            await second.loaded()
            try await withServer { server in
                let one = client(server, URLSessionTransport(), first)
                let other = client(server, URLSessionTransport(), second)
                try await one.putDocument("shared", "stored by the other")
                let before = try await one.send(document(.cacheOnly, name: "shared").notSavedInCache())
                #expect(before.source == .network)
                #expect(one.cachedResponse(for: document(.cacheOnly, name: "shared")) == nil)
                _ = try await other.send(document(.cacheOnly, name: "shared"))
                #expect(server.requestCount("GET", Self.route) == 2)
                let after = try await one.send(document(.cacheOnly, name: "shared"))
                #expect(after.source == .cache && after.value == "stored by the other")
                #expect(server.requestCount("GET", Self.route) == 2)
            }
        }
    }

    @Test func anUnwritableDirectoryLeavesRequestsWorking() async throws {
        let parent = TemporaryDirectory()
        defer { parent.remove() }
        try FileManager.default.createDirectory(at: parent.url, withIntermediateDirectories: true)
        let file = parent.url.appendingPathComponent("a-file")
        try Data("not a directory".utf8).write(to: file)
        let cache = ResponseCache(directory: file.appendingPathComponent("cache"))
        await cache.loaded()
        try await withServer { server in
            let client = client(server, URLSessionTransport(), cache)
            try await client.putDocument("a", "still works")
            #expect(try await client.send(document(.cacheOnly)).value == "still works")
            #expect(try await client.send(document(.cacheOnly)).source == .cache)  // from memory
            #expect(try await client.send(document(.both)).value == "still works")
        }
    }

    @Test func keysAreCanonical() throws {
        let client = APIClient(configuration: {
            var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:1")!)
            configuration.cache = nil
            return configuration
        }())
        var forward: Parameters = [:]
        forward["a"] = 1
        forward["b"] = ["x": 1, "y": [1, 2]]
        forward["c"] = "text"
        var backward: Parameters = [:]
        backward["c"] = "text"
        backward["b"] = ["y": [1, 2], "x": 1]
        backward["a"] = 1
        func key(_ query: Parameters, body: RequestBody = .none, method: HTTPMethod = .get, path: String = "items") throws -> CacheKey {
            try client.cacheKey(for: Request<Data>(method, path, query: query, body: body))
        }
        #expect(try key(forward) == key(backward))
        #expect(try key(forward, body: .parameters(forward), method: .post) == key(backward, body: .parameters(backward), method: .post))
        #expect(try key(forward) != key(["a": 2]))
        #expect(try key(forward) != key(forward, path: "other"))
        #expect(try key(forward) != key(forward, method: .post))
        #expect(try key([:], body: ["a": 1], method: .post) != key([:], body: ["a": 2], method: .post))
        #expect(try key([:], body: ["a": 1]) == key(["a": 1]))  // GET parameters go to the URL
        let photo = Data([0xFF, 0xD8, 0xFF, 0xE0])
        #expect(try key([:], body: ["p": .data(photo)], method: .post) == key([:], body: ["p": .data(Data(photo))], method: .post))
        #expect(try key([:], body: ["p": .data(photo)], method: .post) != key([:], body: ["p": .data(photo + [0])], method: .post))
        #expect(try key(["a": "1"]) != key(["a": 1]))
        let digest = try key(forward).digest
        #expect(digest.count == 64 && digest.allSatisfy(\.isHexDigit))
        #expect(try key(forward).relativePath.hasSuffix("\(digest).apicache"))
    }
}
