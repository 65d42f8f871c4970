import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Secrets never reach a cassette file or a cassette's error messages, in any of their forms, and a
/// redacted cassette still drives authentication capture when replayed.
@Suite struct CassetteRedactionTests {
    static let names = ["access-token", "client", "uid", "expiry"]
    static let email = "ana.cassette@example.com"
    static let password = "correct-horse-battery"
    static let apiKey = "key-0f3a9c1d77"
    static let bearer = "tok-8e1f0c2b9a"
    static let cookie = "cookie-5d2c8e7f"

    static func configure(_ configuration: inout ClientConfiguration) {
        configuration.authenticationHeaders = names
        configuration.credentialStore = CredentialStore.inMemory()
    }

    static func redaction() -> CassetteRedaction {
        var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1")!)
        configure(&configuration)
        var redaction = CassetteRedaction.standard(for: configuration)
        redaction.queryParameters = ["api_key"]
        redaction.bodyFields = ["password"]
        return redaction
    }

    struct Session: Decodable { struct User: Decodable { var email: String }; var data: User }

    /// Signs up, reads `/me`, and sends secrets in the places a test might not think of.
    static func exchanges(_ client: APIClient) async throws -> [String] {
        var seen: [String] = []
        let signUp = Request<Session>(.post, "auth", body: ["email": .string(email), "password": .string(password), "name": "Ana"])
        seen.append(try await client.send(signUp).value.data.email)
        seen.append(try await client.send(Request<Session>(.get, "me")).value.data.email)
        // A key in the query, a bearer token and a cookie in headers, all of them again in the body:
        // plain, and (in the echo's answer) base64-encoded.
        let echo = Request<EchoReply>(
            .post, "echo", query: ["api_key": .string(apiKey), "page": 2],
            body: .data(Data("key=\(apiKey)&token=\(bearer)&cookie=\(cookie)&pw=\(password)".utf8), contentType: "text/plain"),
            headers: ["Authorization": "Bearer \(bearer)", "Cookie": "session=\(cookie); theme=dark"])
        let reply = try await client.send(echo).value
        seen.append(reply.bodyText)
        return seen
    }

    @Test func noSecretReachesTheFileInAnyForm() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("secrets.har")
        var tokens: [String] = []
        try await withServer { server in
            let cassette = try Cassette(file: file, redaction: Self.redaction())
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette), configure: Self.configure)
            let live = try await Self.exchanges(client)
            #expect(live[0] == Self.email && live[1] == Self.email, "the app sees the real answers")
            #expect(live[2].contains(Self.bearer))
            tokens = [client.credentials?["access-token"], client.credentials?["client"]].compactMap { $0 }
            try cassette.flush()
        }
        #expect(tokens.count == 2)
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in [Self.email, Self.password, Self.apiKey, Self.bearer, Self.cookie] + tokens {
            for form in Self.forms(of: secret) {
                #expect(!text.contains(form), "\(secret) appears in the cassette as \(form)")
            }
        }
        #expect(text.contains("Bearer REDACTED") && text.contains("session=REDACTED; theme=dark"), "schemes and cookie names stay")
        #expect(text.contains(#""name" : "api_key""#) && text.contains("page=2"), "names and other values stay")
    }

    /// A named body field is found in any case and however JSON or a form spells its name.
    @Test func bodyFieldsAreFoundInAnyCaseAndAnySpelling() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("fields.har")
        let secrets = ["upper-case-secret", "json-escaped-secret", "form-escaped-secret"]
        try await withServer { server in
            let cassette = try Cassette(file: file, redaction: Self.redaction())
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette))
            let bodies: [(String, String)] = [
                (#"{"PassWord": "upper-case-secret"}"#, "application/json"),
                (#"{"\u0070assword": "json-escaped-secret"}"#, "application/json"),
                ("pass%77ord=form-escaped-secret", "application/x-www-form-urlencoded"),
            ]
            for (body, type) in bodies {
                _ = try await client.send(Request<Data>(.post, "echo", body: .data(Data(body.utf8), contentType: type)))
            }
            try cassette.flush()
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in secrets { #expect(!text.contains(secret), "\(secret) reached the cassette") }
        #expect(text.contains("REDACTED"))
    }

    /// The secret as written, percent-encoded and base64-encoded (standard and URL-safe alphabets).
    static func forms(of secret: String) -> [String] {
        let base64 = Data(secret.utf8).base64EncodedString().trimmingCharacters(in: CharacterSet(charactersIn: "="))
        return [
            secret, secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret, String(base64.dropLast(2)),
            String(base64.dropLast(2)).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
        ]
    }

    @Test func aReplayedSignInDrivesAuthenticationCaptureWithPlaceholders() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("auth.har")
        let baseURL = try await withServer { server in
            let cassette = try Cassette(file: file, redaction: Self.redaction())
            _ = try await Self.exchanges(server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette), configure: Self.configure))
            return server.baseURL
        }
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        Self.configure(&configuration)
        var matching = CassetteMatching.methodAndURL
        matching.headers = ["access-token", "uid"]  // the captured credentials must come back on later requests
        let cassette = try Cassette(file: file, mode: .none, matching: matching, redaction: Self.redaction())
        let client = APIClient(configuration: configuration, transport: ReplayTransport(cassette: cassette))
        let replayed = try await Self.exchanges(client)
        #expect(client.isSignedIn)
        #expect(client.credentials?["access-token"] == "REDACTED" && client.credentials?["uid"] == "REDACTED")
        #expect(replayed[0] == "REDACTED" && replayed[1] == "REDACTED")
        #expect(cassette.unusedEntryCount == 0)
    }

    @Test func aMissMessageShowsNoSecret() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("miss.har")
        let baseURL = try await withServer { server in
            let cassette = try Cassette(file: file, redaction: Self.redaction())
            _ = try await Self.exchanges(server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette), configure: Self.configure))
            return server.baseURL
        }
        var matching = CassetteMatching.methodAndURL
        matching.headers = ["Authorization"]
        matching.comparesBody = true
        let cassette = try Cassette(file: file, mode: .none, matching: matching, redaction: Self.redaction())
        let client = APIClient(baseURL: baseURL, transport: ReplayTransport(cassette: cassette))
        let other = "tok-other-4411aa"
        let request = Request<EchoReply>(
            .post, "echo", query: ["api_key": .string("key-other-5599"), "page": 3],
            body: .data(Data("token=\(other)".utf8), contentType: "text/plain"), headers: ["Authorization": "Bearer \(other)"])
        let error = await #expect(throws: CourierError.self) { try await client.send(request) }
        let message = error?.message ?? ""
        #expect(error?.kind == .cassetteMiss)
        #expect(message.contains("api_key=REDACTED"), "\(message)")
        for secret in [other, "key-other-5599", Self.apiKey, Self.bearer, Self.cookie, Self.password] {
            #expect(!message.contains(secret), "\(secret) in \(message)")
        }
        #expect(message.contains("query: recorded page=2 is not asked"), "\(message)")
    }
}
