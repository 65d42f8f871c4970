import Courier
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

extension SeedExamples {
    /// Seed 000: the Objective-C `API` class (AFNetworking) with its disk cache, error alert,
    /// subclasses and authentication headers. Each test is named after the seed's section and runs
    /// the seed's example through Courier against the sample server. The seed's "Base Model" half is
    /// the same text as seed 002's and runs in `Seed002BaseModelTests`.
    @Suite struct Seed000APITests {
        /// "O primeiro passo é alterar as seguintes três constants": `APIBaseURL` and `APIPath` are a
        /// `ClientConfiguration`; exactly one `/` joins them and the request's path, whatever slashes
        /// each has. `APIErrorDomain` has no counterpart: every failure is one typed `CourierError`.
        @Test func theThreeConstants() async throws {
            try await withServer { server in
                let client = APIClient(configuration: ClientConfiguration(baseURL: server.baseURL, apiPath: "/echo/api/v1/"))
                let echo = try await client.send(Request<EchoReply>(.get, "users")).value
                #expect(echo.path == "/echo/api/v1/users")
            }
        }

        /// `+make:requestWithPath:parameters:cacheOption:completion:` (the simplified method): method,
        /// path, parameters sent as JSON, cache option, and the `APIResponseBlock`.
        @Test func makeRequestWithPathParametersCacheOptionCompletion() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let calls = CallbackRecorder<(JSONValue?, CourierError?, Bool)>()
                client.request(Request<JSONValue>(.post, "echo/users", body: ["user": "jota", "age": 33], cache: .networkOnly)) { response, error, cache in
                    calls.record((response, error, cache))
                }
                let (response, error, cache) = try #require(await calls.next().first)
                #expect(error == nil && !cache)
                let sent = try #require(response?["body"]?.stringValue.flatMap { Data(base64Encoded: $0) })
                #expect(String(decoding: sent, as: UTF8.self) == #"{"age":33,"user":"jota"}"#)
            }
        }

        /// The second, complete `+make:` method: a per-request `baseURL`, `extraHeaders`,
        /// `suppressErrorAlert`, and `uploadBlock` / `downloadBlock` progress.
        @Test func makeRequestWithBaseURLExtraHeadersSuppressErrorAlertAndProgressBlocks() async throws {
            try await withServer { api in
                try await withServer { other in
                    let presenter = ErrorHookTests.Recorder()
                    let client = api.client(URLSessionTransport()) { $0.errorPresenter = presenter.presenter }
                    let uploaded = Locked<[Int64]>([])
                    let downloaded = Locked<[Int64]>([])
                    var request = Request<EchoReply>(.post, "echo/upload", body: ["photo": .data(SeedFixtures.png)], headers: ["X-Extra": "1"])
                    request.baseURL = other.baseURL
                    request.uploadProgress = { progress in uploaded.withLock { $0.append(progress.completed) } }
                    request.downloadProgress = { progress in downloaded.withLock { $0.append(progress.completed) } }
                    let response = try await client.send(request)
                    #expect(response.value.header("X-Extra") == "1")
                    #expect(other.requestCount("POST", "/echo/**") == 1 && api.requestCount("/echo/**") == 0)
                    #expect(uploaded.withLock { $0.last } == Int64(response.value.bodyData.count))
                    #expect(downloaded.withLock { $0.last } == Int64(response.data.count))

                    // The default alert, and `suppressErrorAlert` keeping it quiet for one request.
                    _ = try? await client.send(Request<Data>(.get, "status/404"))
                    var quiet = Request<Data>(.get, "status/404")
                    quiet.suppressErrorAlert = true
                    _ = try? await client.send(quiet)
                    #expect(presenter.shown.withLock { $0.count } == 1)
                }
            }
        }

        /// `-makeRequest` returns an `NSURLSessionDataTask` to cancel: `client.request` returns a
        /// `RequestTask`, and cancelling it reports a cancellation once.
        @Test func makeRequestReturnsATaskThatCancels() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let calls = CallbackRecorder<CourierError?>()
                let task = client.request(Request<Data>(.get, "delay/10000")) { _, error, _ in calls.record(error) }
                task.cancel()
                let error = try #require(await calls.next().first ?? nil)
                #expect(error.isCancelled && error.requestID == task.id)
                await task.waitUntilFinished()
            }
        }

        /// "Cache": `APICacheOptionCacheOnly`, `APICacheOptionNetworkOnly` and `APICacheOptionBoth`.
        @Test func cacheOptionsCacheOnlyNetworkOnlyAndBoth() async throws {
            try await withTemporaryCache { cache, _ in
                try await withServer { server in
                    let client = server.client(URLSessionTransport()) { $0.cache = cache }
                    try await SeedFixtures.put(#"{"v":1}"#, as: "menu", on: client)
                    let menu = { (option: CacheOption) in Request<JSONValue>(.get, "documents/menu", cache: option) }
                    // cacheOnly: not cached yet, so the request is made; then answered from the cache alone
                    #expect(try await client.send(menu(.cacheOnly)).source == .network)
                    #expect(try await client.send(menu(.cacheOnly)).source == .cache)
                    #expect(server.requestCount("GET", "/documents/{name}") == 1)
                    // networkOnly: ignores the cache
                    #expect(try await client.send(menu(.networkOnly)).source == .network)
                    #expect(server.requestCount("GET", "/documents/{name}") == 2)
                    // both: the cached response first, then the network's
                    let calls = CallbackRecorder<Bool>()
                    client.request(menu(.both)) { _, _, fromCache in calls.record(fromCache) }
                    #expect(await calls.next(2) == [true, false])
                }
            }
        }

        /// "O funcionamento do cache": one `.apicache` file per method, path and parameters.
        @Test func cacheFileNamedByMethodPathAndParameters() async throws {
            try await withTemporaryCache { cache, directory in
                try await withServer { server in
                    let client = server.client(URLSessionTransport()) { $0.cache = cache }
                    for page in [1, 2, 1] {
                        _ = try await client.send(Request<JSONValue>(.get, "echo/feed", query: ["page": .int(page)], cache: .both))
                    }
                    let files = directory.files.filter { $0.hasSuffix(".apicache") }
                    #expect(files.count == 2, "page 1 and page 2; the second page-1 request replaced its own file")
                }
            }
        }

        /// `inMemoryCacheMaxSize` of `APICacheManager`: 1 MB unless configured.
        @Test func inMemoryCacheMaxSize() async throws {
            try await withTemporaryCache { cache, _ in
                #expect(cache.memoryCapacity == 1 << 20)
                cache.memoryCapacity = 2 << 20
                #expect(cache.memoryCapacity == 2 << 20)
            }
        }

        /// `request.shouldSaveCache = NO` for the login example: nothing of it reaches the disk.
        @Test func shouldSaveCacheNoForTheLoginRequest() async throws {
            try await withTemporaryCache { cache, directory in
                try await withServer { server in
                    let client = server.client(URLSessionTransport()) { $0.cache = cache }
                    let login = Request<JSONValue>(.post, "echo/login", body: ["user": "jota", "senha": "mansaothugstronda"], cache: .both)
                    _ = try await client.send(login.notSavedInCache())
                    cache.flush()
                    #expect(directory.files.allSatisfy { !$0.hasSuffix(".apicache") })
                }
            }
        }

        /// "Response block": `response` is an `NSDictionary`, an `NSArray`, or an `NSString` when the
        /// body is not JSON (an HTML error page). `JSONValue` is each of those.
        @Test func responseIsADictionaryAnArrayOrAString() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                try await SeedFixtures.put(#"[{"id":1},{"id":2}]"#, as: "list", on: client)
                try await SeedFixtures.put("<html><body>Bad gateway</body></html>", as: "page", contentType: "text/html", on: client)
                #expect(try await client.send(Request<JSONValue>(.get, "sample")).value.objectValue?["user_name"]?.stringValue == "fulana22k")
                #expect(try await client.send(Request<JSONValue>(.get, "documents/list")).value.arrayValue?.count == 2)
                #expect(try await client.send(Request<JSONValue>(.get, "documents/page")).value.stringValue?.hasPrefix("<html>") == true)
                // An HTML error page is an error whose body is still there to read.
                let error = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "errors/500")) }
                #expect(error?.bodyText?.contains("Internal Server Error") == true)
            }
        }

        /// "Error handling": `+handleError:withResponseObject:` picks the message (often from the
        /// body) and `+showErrorMessage:` shows it. Courier reads the body's `error` / `error_message`
        /// / `message` into `userMessage` and hands the error to the `errorPresenter`; the seed's
        /// deprecated `UIAlertView` is an `ErrorPresenter` you choose.
        @Test func handleErrorWithResponseObject() async throws {
            try await withServer { server in
                let presenter = ErrorHookTests.Recorder()
                let client = server.client(URLSessionTransport()) { $0.errorPresenter = presenter.presenter }
                let error = await #expect(throws: CourierError.self) {
                    try await client.send(Request<JSONValue>(.get, "errors/400", query: ["key": "error_message", "message": "Senha incorreta"]))
                }
                #expect(error?.userMessage == "Senha incorreta")
                #expect(presenter.shown.withLock { $0 } == ["Senha incorreta"])
            }
        }

        /// "E onde eu coloco meus metodos hein?": subclasses of `API` group requests, and an overridden
        /// `-setParameters:` adds the user's e-mail to each. A `RequestGroup` value does both.
        @Test func subclassesGroupRequestsAndSetParametersAddsTheEmail() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let user = RequestGroup(apiPath: "echo/user", bodyParameters: ["email": "ana@example.com"])
                let update = try await client.send(user.request(.patch, "profile", body: ["name": "Ana"], as: EchoReply.self)).value
                #expect(update.bodyText == #"{"email":"ana@example.com","name":"Ana"}"#)
                let show = try await client.send(user.request(.get, "profile", as: EchoReply.self)).value
                #expect(show.query == "email=ana%40example.com")
            }
        }

        /// "Sim eu sei que dúvidas": `authenticationHeaders` are captured from responses, saved, sent
        /// with every request and removed by `-logout`. The seed saves them in `NSUserDefaults`, a
        /// plain-text preferences file; Courier keeps them in the Keychain on Apple platforms and in a
        /// 0600 file on Linux, and sends them only to the API's origin.
        @Test func authenticationHeadersArePersistedInjectedAndClearedOnLogout() async throws {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            try await withServer { server in
                let store = CredentialStore.file(origin: server.baseURL.origin, directory: directory.url)
                let client = server.client(URLSessionTransport()) {
                    $0.authenticationHeaders = ["access-token", "client", "uid"]
                    $0.credentialStore = store
                }
                _ = try await AuthenticationTests.signIn(client)
                #expect(try store.load()?["uid"] == "demo@example.com")
                #expect(try await client.send(Request<JSONValue>(.get, "me")).statusCode == 200)
                try client.logout()
                #expect(try store.load() == nil && !client.isSignedIn)
                let denied = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "me")) }
                #expect(denied?.classification == .unauthorized)
            }
        }
    }
}
