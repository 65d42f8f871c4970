@testable import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Authentication headers: captured, persisted, injected, never leaked, cleared by logout.
@Suite struct AuthenticationTests {
    static let names = ["access-token", "client", "uid", "expiry"]

    struct SignedInUser: Decodable, Sendable {
        struct User: Decodable, Sendable {
            var id: Int
            var email: String
        }
        var data: User
    }

    func client(_ server: ImageStoreServer, store: CredentialStore, logger: LogCapture? = nil,
                authenticator: (any Authenticator)? = nil, transport: any HTTPTransport = URLSessionTransport()) -> APIClient {
        server.client(transport) {
            $0.authenticationHeaders = Self.names
            $0.credentialStore = store
            $0.authenticator = authenticator
            if let logger { $0.logger = logger.logger }
        }
    }

    static func signIn(_ client: APIClient, email: String = "demo@example.com", password: String = "password") async throws -> Response<SignedInUser> {
        try await client.send(Request<SignedInUser>(.post, "auth/sign_in", body: ["email": .string(email), "password": .string(password)]))
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-auth-\(UUID().uuidString)")
    }

    @Test(arguments: TransportKind.allCases)
    func captureInjectPersistAndLogout(kind: TransportKind) async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            try await kind.with { transport in
                let store = CredentialStore.file(origin: server.baseURL.origin, directory: directory)
                let file = CredentialStore.fileURL(origin: server.baseURL.origin, directory: directory)
                let client = client(server, store: store, transport: transport)
                #expect(!client.isSignedIn)
                let denied = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "me")) }
                #expect(denied?.classification == .unauthorized)
                let signedIn = try await Self.signIn(client)
                #expect(signedIn.value.data.email == "demo@example.com")
                let token = try #require(client.credentials?["access-token"])
                #expect(client.credentials?["uid"] == "demo@example.com")
                let me = try await client.send(Request<SignedInUser>(.get, "me"))
                #expect(me.value.data.email == "demo@example.com")
                #expect(client.credentials?["access-token"] != token, "the token rotates on every response")
                // persisted, readable by the user alone
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
                let folder = try FileManager.default.attributesOfItem(atPath: directory.path)
                #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
                #expect(try store.load() == client.credentials)
                // a new client (a relaunch) starts signed in from the store
                let relaunched = self.client(server, store: store, transport: transport)
                #expect(relaunched.isSignedIn)
                #expect(try await relaunched.send(Request<SignedInUser>(.get, "me")).value.data.email == "demo@example.com")
                try relaunched.logout()
                #expect(!relaunched.isSignedIn)
                #expect(!FileManager.default.fileExists(atPath: file.path))
                let after = await #expect(throws: CourierError.self) { try await relaunched.send(Request<JSONValue>(.get, "me")) }
                #expect(after?.classification == .unauthorized)
            }
        }
    }

    @Test func theTokenIsFoundInNoFileAndNoLogAfterLogout() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            let logs = LogCapture()
            let store = CredentialStore.file(origin: server.baseURL.origin, directory: directory)
            let client = client(server, store: store, logger: logs)
            var tokens: Set<String> = []
            _ = try await Self.signIn(client)
            tokens.insert(try #require(client.credentials?["access-token"]))
            _ = try await client.send(Request<JSONValue>(.get, "me"))
            tokens.insert(try #require(client.credentials?["access-token"]))
            _ = try? await client.send(Request<JSONValue>(.get, "status/500"))
            try client.logout()
            #expect(logs.text.contains("access-token: <redacted>"))
            #expect(!logs.text.isEmpty)
            var written = ""
            for case let file as URL in FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) ?? .init() {
                written += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            }
            for token in tokens {
                #expect(!logs.text.contains(token), "a token is in the logs")
                #expect(!written.contains(token), "a token is in a file")
            }
        }
    }

    @Test func anotherOriginNeverReceivesNorReplacesTheCredentials() async throws {
        try await withServer { api in
            try await withServer { other in
                let client = client(api, store: CredentialStore.inMemory())
                _ = try await Self.signIn(client)
                let credentials = try #require(client.credentials)
                // a per-request base URL pointing elsewhere
                var elsewhere = Request<EchoReply>(.get, "echo/x")
                elsewhere.baseURL = other.baseURL
                let echo = try await client.send(elsewhere).value
                for name in Self.names { #expect(echo.header(name) == nil, "\(name) reached the other origin") }
                // the other server issues its own tokens: they are not captured
                var foreign = Request<SignedInUser>(.post, "auth/sign_in", body: ["email": "demo@example.com", "password": "password"])
                foreign.baseURL = other.baseURL
                let answer = try await client.send(foreign)
                #expect(answer.headers["access-token"] != nil)
                #expect(client.credentials == credentials)
                // a redirect to the other server arrives without them
                let target = other.baseURL.absoluteString + "/echo/landed"
                let redirected = try await client.send(Request<EchoReply>(.get, "redirect", query: ["to": .string(target)])).value
                #expect(redirected.path == "/echo/landed")
                for name in Self.names { #expect(redirected.header(name) == nil) }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func concurrentRotationsEndWithTheNewestToken(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = client(server, store: CredentialStore.inMemory(), transport: transport)
                _ = try await Self.signIn(client)
                let expiries = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<100 {
                        group.addTask {
                            let response = try await client.send(Request<SignedInUser>(.get, "me"))
                            return try #require(response.headers["expiry"].flatMap { Int($0) })
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(expiries.count == 100)
                #expect(client.credentials?["expiry"] == String(expiries.max()!))
                // and that newest token works
                _ = try await client.send(Request<SignedInUser>(.get, "me"))
            }
        }
    }

    /// Signs in again with the demo account.
    final class ReSignIn: Authenticator {
        let calls = Locked(0)
        func refreshCredentials(using client: APIClient) async throws -> Bool {
            calls.withLock { $0 += 1 }
            _ = try await AuthenticationTests.signIn(client)
            return true
        }
    }

    @Test func tenConcurrent401sCauseOneRefresh() async throws {
        try await withServer { server in
            let stale = Credentials(headers: ["access-token": "expired", "client": "old", "uid": "demo@example.com", "expiry": "1"], origin: server.baseURL.origin)
            let authenticator = ReSignIn()
            let client = client(server, store: CredentialStore.inMemory(stale), authenticator: authenticator)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 {
                    // Each sends its own request (no sharing), so ten 401s arrive.
                    group.addTask { _ = try await client.send(Request<SignedInUser>(.get, "me").deduplicated(false)) }
                }
                try await group.waitForAll()
            }
            #expect(authenticator.calls.withLock { $0 } == 1)
            #expect(server.requestCount("POST", "/auth/sign_in") == 1)
            #expect(server.requestCount("GET", "/me") >= 11)
        }
    }

    /// A Server-Sent Events stream that reconnects after a drop sends the client's credentials
    /// again; when they have expired meanwhile, the 401 refreshes them through the authenticator
    /// (once) and the stream resumes after the last event it had.
    @Test(arguments: TransportKind.allCases)
    func aStreamReconnectingWithExpiredCredentialsRefreshesThem(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let authenticator = ReSignIn()
                let client = client(server, store: CredentialStore.inMemory(), authenticator: authenticator, transport: transport)
                _ = try await Self.signIn(client)
                let events = try client.events(
                    Request(.get, "notifications", query: ["count": 4, "dropAfter": 2]), reconnection: RetryPolicy(maximumAttempts: 11, baseDelay: .milliseconds(10)))
                var ids: [String] = []
                for try await event in events {
                    ids.append(event.id)
                    // The session ends while the stream is open: the reconnect after the drop gets a 401.
                    if ids.count == 1 { _ = try await client.send(Request<JSONValue>(.delete, "auth/sign_out")) }
                }
                #expect(ids == ["1", "2", "3", "4"])
                #expect(authenticator.calls.withLock { $0 } == 1)
                // The first connection, the 401, the resumed one, the 204; on async-http-client one
                // more when it lost the second event with the drop (it can discard body parts that
                // arrive with the connection's end), so the stream resumes after the first.
                let connections = server.requestCount("GET", "/notifications")
                #expect(kind == .urlSession ? connections == 4 : (4...5).contains(connections), "\(connections)")
            }
        }
    }

    @Test func aFailedRefreshLetsThe401Through() async throws {
        struct Refuse: Authenticator {
            func refreshCredentials(using client: APIClient) async throws -> Bool { false }
        }
        try await withServer { server in
            let stale = Credentials(headers: ["access-token": "x", "client": "y", "uid": "demo@example.com"], origin: server.baseURL.origin)
            let client = client(server, store: CredentialStore.inMemory(stale), authenticator: Refuse())
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "me")) }
            #expect(error?.classification == .unauthorized)
            #expect(server.requestCount("GET", "/me") == 1)
        }
    }

    @Test func signUpAndItsValidation() async throws {
        try await withServer { server in
            let client = client(server, store: CredentialStore.inMemory())
            let created = try await client.send(Request<SignedInUser>(.post, "auth", body: ["email": "ana@example.com", "password": "longenough", "name": "Ana"]))
            #expect(created.statusCode == 201)
            #expect(client.credentials?["uid"] == "ana@example.com")
            let error = await #expect(throws: CourierError.self) {
                try await client.send(Request<JSONValue>(.post, "auth", body: ["email": "ana@example.com", "password": "short"]))
            }
            #expect(error?.validationErrors?.fields == ["password": ["is too short (minimum is 8 characters)"]])
            let wrong = await #expect(throws: CourierError.self) { try await Self.signIn(client, password: "wrong") }
            #expect(wrong?.classification == .unauthorized)
            #expect(wrong?.userMessage == "Invalid login credentials. Please try again.")
        }
    }

    @Test func theDemoAccountIsConfigurable() async throws {
        let server = try await ImageStoreServer.instrumented(ServerConfiguration(demoAccount: nil))
        let client = client(server, store: CredentialStore.inMemory())
        let error = await #expect(throws: CourierError.self) { try await Self.signIn(client) }
        #expect(error?.classification == .unauthorized)
        await server.stop()
    }

    struct Unavailable: Error {}

    /// The Keychain store's errors (Apple platforms) say what happened in words an app can act
    /// on; an item that is not Courier's credentials is an error that says so, not a crash.
    @Test func keychainErrorsSayWhatHappened() throws {
        #expect(KeychainError(status: -25308).description.contains("device is locked"))
        #expect(KeychainError(status: -34018).description.contains("entitle"))
        #expect(KeychainError(status: -1).description == "A Keychain call failed: the call returned OSStatus -1.")
        let credentials = Credentials(headers: ["access-token": "t"], origin: "https://api.example.com")
        #expect(try KeychainError.decoded(JSONEncoder().encode(credentials), service: "s", account: "a") == credentials)
        let unreadable = #expect(throws: KeychainError.self) { try KeychainError.decoded(Data("not json".utf8), service: "app", account: "me") }
        #expect(unreadable?.status == 0 && unreadable?.description.contains("app/me (8 bytes)") == true, "\(String(describing: unreadable))")
    }

    @Test func anUnreadableStoreIsNotWiped() {
        // A store that cannot be read for now, like a locked Keychain.
        let cleared = Locked(false)
        let store = CredentialStore(load: { throw Unavailable() }, save: { _ in }, clear: { cleared.withLock { $0 = true } })
        let client = APIClient(configuration: {
            var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:1")!)
            configuration.authenticationHeaders = Self.names
            configuration.credentialStore = store
            return configuration
        }())
        #expect(!client.isSignedIn)
        #expect(cleared.withLock { $0 } == false)
    }

    @Test func aCorruptCredentialFileMeansSignedOut() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            let file = directory.appendingPathComponent("credentials.json")
            let store = CredentialStore.file(file)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("{not json".utf8).write(to: file)
            let client = client(server, store: store)
            #expect(!client.isSignedIn)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            _ = try await Self.signIn(client)
            #expect(client.isSignedIn)
        }
    }
}
