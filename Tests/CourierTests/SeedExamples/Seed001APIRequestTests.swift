@testable import CourierExamples
@testable import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

extension SeedExamples {
    /// Seed 001: `APIRequest`, the Swift successor of seed 000's class, with `ResponseBlock<T>`,
    /// `RequestError` and subclasses per group of requests. Each test is named after the seed's
    /// section and runs its example through Courier against the sample server.
    @Suite struct Seed001APIRequestTests {
        /// The seed's `User`, decoded from the sign-in answer (`{"data": {"id", "email"}}`).
        struct User: Decodable, Sendable {
            var uid: Int
            var email: String
        }

        /// `AuthenticationAPI.loginWith(username:password:callback:)`: a group of static functions
        /// that start a request and return something to cancel it by, with a `ResponseBlock<User>`,
        /// `.networkOnly` and `shouldSaveInCache = false`. Swift 6's form is a caseless enum (no
        /// subclass, no shared mutable state), `Request` values, and the `RequestTask` returned
        /// by `request(_:responseBlock:)`; `decoding(at: "data")` replaces the seed's
        /// `response as? [String: Any]` and `User(dictionary:)`.
        enum AuthenticationAPI {
            @discardableResult
            static func loginWith(username: String, password: String, client: APIClient, callback: @escaping APIClient.ResponseBlock<User>) -> RequestTask {
                let request = Request<User>(.post, "auth/sign_in", body: ["email": .string(username), "password": .string(password)], cache: .networkOnly)
                    .decoding(at: "data")
                    .notSavedInCache()
                return client.request(request, responseBlock: callback)
            }
        }

        /// "Constants": `baseURL`, `apiPath` and `authenticationHeaders` are a `ClientConfiguration`;
        /// `authenticationHeadersDefaultsKey` (a `UserDefaults` key) becomes a `CredentialStore`
        /// (the Keychain, or a 0600 file, by default).
        @Test func constantsAreAClientConfiguration() async throws {
            try await withServer { server in
                var configuration = ClientConfiguration(baseURL: server.baseURL, apiPath: "echo/v1/", authenticationHeaders: ["access-token", "client", "uid"])
                configuration.credentialStore = CredentialStore.inMemory()
                let client = APIClient(configuration: configuration)
                let echo = try await client.send(Request<EchoReply>(.get, "artists")).value
                #expect(echo.path == "/echo/v1/artists")
            }
        }

        /// "Exemplo": `AuthenticationAPI.loginWith(...)` and its `ResponseBlock<User>` called with
        /// `(user, nil, cache)`, or `(nil, error, cache)` for a wrong password.
        @Test func loginWithUsernameAndPasswordCallsTheResponseBlock() async throws {
            try await withTemporaryCache { cache, directory in
                try await withServer { server in
                    let client = server.client(URLSessionTransport()) {
                        $0.cache = cache
                        $0.authenticationHeaders = ["access-token", "client", "uid"]
                        $0.credentialStore = CredentialStore.inMemory()
                    }
                    let calls = CallbackRecorder<(User?, CourierError?, Bool)>()
                    AuthenticationAPI.loginWith(username: "demo@example.com", password: "password", client: client) { user, error, cache in
                        calls.record((user, error, cache))
                    }
                    let (user, error, fromCache) = try #require(await calls.next().first)
                    #expect(user?.email == "demo@example.com" && error == nil && !fromCache)
                    #expect(client.isSignedIn)
                    #expect(directory.files.allSatisfy { !$0.hasSuffix(".apicache") }, "shouldSaveInCache = false")

                    AuthenticationAPI.loginWith(username: "demo@example.com", password: "wrong", client: client) { user, error, cache in
                        calls.record((user, error, cache))
                    }
                    let (noUser, failure, _) = try #require(await calls.next().first)
                    #expect(noUser == nil && failure?.classification == .unauthorized)
                }
            }
        }

        /// The initializer's `parameters` (the JSON body) and `urlParameters` (the query) on one POST.
        @Test func parametersAndURLParametersOnOnePost() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let echo = try await client.send(Request<EchoReply>(.post, "echo/search", query: ["page": 2], body: ["q": "pizza"])).value
                #expect(echo.query == "page=2" && echo.bodyText == #"{"q":"pizza"}"#)
            }
        }

        /// "Além desses parametros": `parameterEncoder` is `JSONParameterEncoder` by default,
        /// `URLParameterEncoder` on request, or your own type conforming to `ParameterEncoding`.
        @Test func parameterEncoderJSONURLOrYourOwn() async throws {
            struct PlainText: ParameterEncoding {
                func encode(_ parameters: Parameters) throws -> EncodedBody {
                    let lines = parameters.keys.sorted().map { "\($0)=\(parameters[$0]?.textValue ?? "")" }
                    return EncodedBody(data: Data(lines.joined(separator: "\n").utf8), contentType: "text/plain")
                }
            }
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                var request = Request<EchoReply>(.post, "echo/form", body: ["name": "Ana Lú", "age": 30])
                #expect(try await client.send(request).value.bodyText == #"{"age":30,"name":"Ana Lú"}"#)
                request.encoder = URLFormParameterEncoder()
                let form = try await client.send(request).value
                #expect(form.bodyText == "age=30&name=Ana%20L%C3%BA" && form.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
                request.encoder = PlainText()
                #expect(try await client.send(request).value.bodyText == "age=30\nname=Ana Lú")
            }
        }

        /// "Error handling": `RequestError.error(responseObject:urlResponse:originalError:)` is
        /// `CourierError` with `bodyValue`, `statusCode` / `headers` and `underlyingError`. The seed's
        /// `UserAPI.profile` example: 401 signs the user out, an `error_message` is shown, anything
        /// else shows the original error's description.
        @Test func requestErrorCarriesTheBodyTheStatusAndTheOriginalError() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                func profile(_ path: String, query: Parameters = [:]) async -> String {
                    do {
                        _ = try await client.send(Request<JSONValue>(.get, path, query: query))
                        return "ok"
                    } catch {
                        if error.statusCode == 401 { return "logout user" }
                        if let message = error.bodyValue?.json?["error_message"]?.stringValue { return message }
                        return error.message
                    }
                }
                #expect(await profile("me") == "logout user")
                #expect(await profile("errors/400", query: ["key": "error_message", "message": "Perfil inválido"]) == "Perfil inválido")
                #expect(await profile("errors/500").contains("500"))
            }
            // No server at all: the original error is kept as the cause.
            let gone = try await withServer { $0.baseURL }
            let error = await #expect(throws: CourierError.self) {
                try await APIClient(baseURL: gone).send(Request<JSONValue>(.get, "me"))
            }
            #expect(error?.classification == .cannotConnect && error?.underlyingError != nil)
        }

        /// The `localizedDescription` extension "verifica a existência de uma string na chave
        /// `error`": `userMessage` does, and `ErrorHandling.messageExtractor` is the extension point.
        @Test func localizedDescriptionReadsTheErrorKey() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let error = await #expect(throws: CourierError.self) {
                    try await client.send(Request<JSONValue>(.get, "errors/403", query: ["message": "Plano expirado"]))
                }
                #expect(error?.userMessage == "Plano expirado")
                let custom = server.client(URLSessionTransport()) { $0.errorHandling = ErrorHandling(messageExtractor: { "HTTP \($0.statusCode ?? 0)" }) }
                let rewritten = await #expect(throws: CourierError.self) { try await custom.send(Request<JSONValue>(.get, "errors/403")) }
                #expect(rewritten?.userMessage == "HTTP 403")
            }
        }

        /// "Cache": `.both` calls the `ResponseBlock` with the cached value (`cache` true), then with
        /// the network's.
        @Test func cacheBothCallsTheBlockTwice() async throws {
            try await withTemporaryCache { cache, _ in
                try await withServer { server in
                    let client = server.client(URLSessionTransport()) { $0.cache = cache }
                    let profile = try await SeedFixtures.serveUser(on: client).cache(.both)
                    _ = try await client.send(profile)
                    let calls = CallbackRecorder<(String?, Bool)>()
                    client.request(profile) { user, _, cache in calls.record((user?.userName, cache)) }
                    let both = await calls.next(2)
                    #expect(both.map(\.0) == ["fulana22k", "fulana22k"] && both.map(\.1) == [true, false])
                }
            }
        }

        /// "Mais opções": a subclass whose `init` sets its own `baseURL`, and a `parameters` `didSet`
        /// that adds the user's e-mail. A `RequestGroup` value does both without a subclass.
        @Test func subclassBaseURLAndParametersDidSet() async throws {
            try await withServer { api in
                try await withServer { other in
                    let client = api.client(URLSessionTransport())
                    let authentication = RequestGroup(baseURL: other.baseURL, apiPath: "echo/api/v1", bodyParameters: ["email": "ana@example.com"])
                    let echo = try await client.send(authentication.request(.post, "password", body: ["new": "s3cret"], as: EchoReply.self)).value
                    #expect(echo.path == "/echo/api/v1/password")
                    #expect(echo.bodyText == #"{"email":"ana@example.com","new":"s3cret"}"#)
                    #expect(other.requestCount("/echo/**") == 1 && api.requestCount("/echo/**") == 0)
                }
            }
        }
    }
}
