import Courier
import Foundation
import Testing

/// Sessions kept in cookies by real frameworks (Django with its CSRF cookie and header, Flask),
/// served by `Scripts/cookie-apps.py` from the PyPI packages the tests install: each signs in,
/// makes an authenticated call, logs out (Courier's `logout()`), and the next user sees nothing of
/// the first, on both transports.
@Suite struct CookieSessionTests {
    struct User: Decodable { var user: String? }

    static func client(_ server: ToolServer, _ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: server.url)
        configuration.errorPresenter = nil
        configuration.cache = nil
        return APIClient(configuration: configuration, transport: transport)
    }

    /// Django: the CSRF cookie, then a login that must carry its token in `X-CSRFToken`.
    static func djangoLogin(_ client: APIClient, as user: String) async throws -> String? {
        _ = try await client.send(Request<Data>(.get, "django/csrf"))
        let token = try #require(client.cookieJar?.cookies.first { $0.name == "csrftoken" }?.value)
        let request = Request<User>(.post, "django/login", body: ["user": .string(user)], headers: ["X-CSRFToken": token])
        return try await client.send(request).value.user
    }

    static func me(_ client: APIClient, _ path: String) async throws -> Int {
        do {
            _ = try await client.send(Request<User>(.get, path))
            return 200
        } catch {
            return error.statusCode ?? -1
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDjangoSessionWithItsCSRFCookieEndsWithLogout(kind: TransportKind) async throws {
        let server = try await ToolServer.start(python: "cookie-apps.py", in: .frameworks)
        defer { Task { await server.stop() } }
        try await kind.with { transport in
            let client = Self.client(server, transport)
            // Without the CSRF token, Django refuses the login.
            await #expect(throws: CourierError.self) {
                try await client.send(Request<User>(.post, "django/login", body: ["user": "ana"]))
            }
            #expect(try await Self.djangoLogin(client, as: "ana") == "ana")
            #expect(try await client.send(Request<User>(.get, "django/me")).value.user == "ana")
            #expect(client.cookieJar?.cookies.first { $0.name == "sessionid" }?.isHTTPOnly == true)
            try client.logout()
            #expect(try await Self.me(client, "django/me") == 401)
            // The next user, on the same client: nothing of Ana's.
            #expect(try await Self.djangoLogin(client, as: "bruno") == "bruno")
            #expect(try await client.send(Request<User>(.get, "django/me")).value.user == "bruno")
            // Django's own logout deletes the session cookie.
            let token = try #require(client.cookieJar?.cookies.first { $0.name == "csrftoken" }?.value)
            _ = try await client.send(Request<User>(.post, "django/logout", headers: ["X-CSRFToken": token]))
            #expect(client.cookieJar?.cookies.contains { $0.name == "sessionid" } == false)
            #expect(try await Self.me(client, "django/me") == 401)
            // Another client never had a session.
            #expect(try await Self.me(Self.client(server, transport), "django/me") == 401)
        }
        await server.stop()
    }

    @Test(arguments: TransportKind.allCases)
    func aFlaskSessionEndsWithLogout(kind: TransportKind) async throws {
        let server = try await ToolServer.start(python: "cookie-apps.py", in: .frameworks)
        defer { Task { await server.stop() } }
        try await kind.with { transport in
            let client = Self.client(server, transport)
            #expect(try await Self.me(client, "flask/me") == 401)
            #expect(try await client.send(Request<User>(.post, "flask/login", body: ["user": "ana"])).value.user == "ana")
            #expect(try await client.send(Request<User>(.get, "flask/me")).value.user == "ana")
            #expect(client.cookieJar?.cookies.map(\.name) == ["session"])
            try client.logout()
            #expect(try await Self.me(client, "flask/me") == 401)
            #expect(try await client.send(Request<User>(.post, "flask/login", body: ["user": "bruno"])).value.user == "bruno")
            #expect(try await client.send(Request<User>(.get, "flask/me")).value.user == "bruno")
            _ = try await client.send(Request<User>(.post, "flask/logout"))
            #expect(try await Self.me(client, "flask/me") == 401)
        }
        await server.stop()
    }
}
