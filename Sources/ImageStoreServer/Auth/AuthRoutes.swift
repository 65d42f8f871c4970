import Foundation
import HTTPTypes
import Hummingbird

/// devise_token_auth-style authentication (seeds 000/001):
/// - `POST /auth` with `{"email", "password", "name"}`: sign up; 201, or 422 with Rails-shaped errors;
/// - `POST /auth/sign_in` with `{"email", "password"}`: 200, or 401;
/// - `DELETE /auth/sign_out`: ends the client's tokens;
/// - `GET /me` (XML with `?type=xml`): the signed-in user, or 401;
/// - `GET /notifications`: the signed-in user's notifications, Server-Sent Events as `GET /events` sends (same query), or 401.
///
/// Successful authenticated responses carry `access-token`, `token-type`, `client`, `expiry` and
/// `uid` headers, with a new `access-token` every time.
struct AuthRoutes {
    struct Credentials: Decodable {
        var email: String
        var password: String
        var name: String?
    }

    struct UserBody: Encodable {
        var id: Int64
        var email: String
        var name: String
    }

    let accounts: AccountStore

    func add(to router: Router<BasicRequestContext>) {
        router.post("auth", use: signUp)
        router.post("auth/sign_in", use: signIn)
        router.delete("auth/sign_out", use: signOut)
        router.get("me", use: me)
        router.get("notifications", use: notifications)
    }

    @Sendable func signUp(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let credentials = try await request.decode(as: Credentials.self, context: context)
        do {
            let session = try await accounts.signUp(email: credentials.email, password: credentials.password, name: credentials.name ?? "")
            return try respond(session, status: .created, request: request)
        } catch let invalid as AccountStore.Invalid {
            return try jsonResponse(["errors": invalid.fields], status: .unprocessableContent)
        }
    }

    @Sendable func signIn(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let credentials = try await request.decode(as: Credentials.self, context: context)
        guard let session = try await accounts.signIn(email: credentials.email, password: credentials.password) else {
            return try jsonResponse(["error": "Invalid login credentials. Please try again."], status: .unauthorized)
        }
        return try respond(session, status: .ok, request: request)
    }

    @Sendable func signOut(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let session = try await authenticate(request), let client = HTTPField.Name("client").flatMap({ request.headers[$0] }) else {
            return try jsonResponse(["error": "User was not found or was not logged in."], status: .notFound)
        }
        try await accounts.signOut(client: client)
        return try jsonResponse(["success": true, "uid": .init(session.email)] as [String: JSONScalar])
    }

    @Sendable func me(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let session = try await authenticate(request) else {
            return try jsonResponse(["error": "You need to sign in or sign up before continuing."], status: .unauthorized)
        }
        return try respond(session, status: .ok, request: request)
    }

    @Sendable func notifications(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard try await authenticate(request) != nil else {
            return try jsonResponse(["error": "You need to sign in or sign up before continuing."], status: .unauthorized)
        }
        return try await StreamRoutes().events(request, context: context)
    }

    private func authenticate(_ request: Request) async throws -> AccountStore.Session? {
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { request.headers[$0] } }
        return try await accounts.authenticate(token: header("access-token"), client: header("client"), uid: header("uid"))
    }

    private func respond(_ session: AccountStore.Session, status: HTTPResponse.Status, request: Request) throws -> Response {
        var response = try formatted(["data": UserBody(id: session.userID, email: session.email, name: session.name)], root: "user", status: status, request: request)
        for (name, value) in session.headers {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        return response
    }
}

/// A string or Boolean in a small JSON object.
enum JSONScalar: Encodable, ExpressibleByBooleanLiteral {
    case string(String)
    case bool(Bool)

    init(_ string: String) { self = .string(string) }
    init(booleanLiteral value: Bool) { self = .bool(value) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
