import Courier
import Crypto
import Foundation
import GRDB
import HummingbirdBcrypt
import NIOPosix

/// Accounts and devise-style rotating tokens in the server's database.
///
/// Passwords are stored as bcrypt hashes, tokens as SHA-256 hashes. Every authenticated response
/// carries a new token whose `expiry` is strictly greater than the previous one of the same client
/// (so clients can keep the newest by comparing expiries); a replaced token stays valid for a grace
/// period, so requests already in flight with it succeed.
struct AccountStore: Sendable {
    /// A signed-in user and the headers of their newest token.
    struct Session: Sendable {
        let userID: Int64
        let email: String
        let name: String
        let headers: [(String, String)]
    }

    /// Why an account could not be created: field → messages, as a 422 reports them.
    struct Invalid: Error {
        let fields: [String: [String]]
    }

    /// The user a token belongs to, and the token's state.
    private struct TokenOwner: Sendable {
        let id: Int64
        let email: String
        let name: String
        let expiry: Int64
        let replacedAt: Date?
    }

    static let tokenLifetime: Int64 = 14 * 24 * 3600

    let database: ServerDatabase
    let bcryptCost: UInt8
    let grace: Duration

    /// Creates an account; throws ``Invalid`` for a bad or taken e-mail or a short password.
    func signUp(email: String, password: String, name: String) async throws -> Session {
        var fields: [String: [String]] = [:]
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        if !email.contains("@") || email.hasPrefix("@") || email.hasSuffix("@") { fields["email", default: []].append("is invalid") }
        if password.count < 8 { fields["password", default: []].append("is too short (minimum is 8 characters)") }
        let taken = try await database.queue.read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE email = ?", arguments: [email]) }
        if fields.isEmpty, taken == true {
            fields["email", default: []].append("has already been taken")
        }
        guard fields.isEmpty else { throw Invalid(fields: fields) }
        let hash = try await hashed(password)
        let userID = try await database.queue.write { db -> Int64 in
            try db.execute(sql: "INSERT INTO user (email, name, passwordHash, createdAt) VALUES (?, ?, ?, ?)", arguments: [email, name, hash, Date()])
            return db.lastInsertedRowID
        }
        return try await issue(userID: userID, email: email, name: name, client: nil)
    }

    /// The bcrypt hash of `password`. bcrypt is slow by design, so it runs on NIO's thread pool:
    /// on a thread of the concurrency pool (two on two cores) it would hold back every other task
    /// of the process, in-process servers' handlers and their clients' tests included, for as
    /// long as it takes.
    private func hashed(_ password: String) async throws -> String {
        let cost = bcryptCost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Ensures an account exists (for the demo account).
    func ensureAccount(email: String, password: String) async throws {
        let exists = try await database.queue.read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE email = ?", arguments: [email]) } ?? false
        guard !exists else { return }
        let hash = try await hashed(password)
        try await database.queue.write { db in
            try db.execute(sql: "INSERT INTO user (email, name, passwordHash, createdAt) VALUES (?, ?, ?, ?)", arguments: [email, "Demo", hash, Date()])
        }
    }

    /// Signs in with e-mail and password; `nil` when they do not match.
    func signIn(email: String, password: String) async throws -> Session? {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let found = try await database.queue.read { db -> (id: Int64, name: String, hash: String)? in
            try Row.fetchOne(db, sql: "SELECT id, name, passwordHash FROM user WHERE email = ?", arguments: [email])
                .map { ($0["id"], $0["name"], $0["passwordHash"]) }
        }
        guard let user = found, try await NIOThreadPool.singleton.runIfActive({ Bcrypt.verify(password, hash: user.hash) }) else { return nil }
        return try await issue(userID: user.id, email: email, name: user.name, client: nil)
    }

    /// Checks `access-token`, `client` and `uid`; on success returns the session with a new token
    /// for the same client.
    func authenticate(token: String?, client: String?, uid: String?) async throws -> Session? {
        guard let token, let client, let uid, !token.isEmpty else { return nil }
        let hash = Self.hash(token)
        let now = Date()
        let graceSeconds = Double(grace.components.seconds)
        let found = try await database.queue.read { db -> TokenOwner? in
            try Row.fetchOne(db, sql: """
                SELECT user.id AS id, user.email AS email, user.name AS name, token.expiry AS expiry, token.replacedAt AS replacedAt
                FROM token JOIN user ON user.id = token.userId
                WHERE token.client = ? AND token.tokenHash = ?
                """, arguments: [client, hash])
            .map { TokenOwner(id: $0["id"], email: $0["email"], name: $0["name"], expiry: $0["expiry"], replacedAt: $0["replacedAt"]) }
        }
        guard let owner = found, owner.email == uid.lowercased(), Int64(now.timeIntervalSince1970) < owner.expiry else { return nil }
        if let replaced = owner.replacedAt, now.timeIntervalSince(replaced) > graceSeconds { return nil }
        return try await issue(userID: owner.id, email: owner.email, name: owner.name, client: client)
    }

    /// Ends every token of `client`.
    func signOut(client: String) async throws {
        try await database.queue.write { db in try db.execute(sql: "DELETE FROM token WHERE client = ?", arguments: [client]) }
    }

    /// A new token for `client` (a new client when `nil`), with an expiry above every earlier one of
    /// that client; earlier tokens are marked replaced.
    private func issue(userID: Int64, email: String, name: String, client: String?) async throws -> Session {
        let client = client ?? Self.randomToken()
        let token = Self.randomToken()
        let now = Date()
        let expiry = try await database.queue.write { db -> Int64 in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(expiry) FROM token WHERE client = ?", arguments: [client]) ?? 0
            let expiry = max(Int64(now.timeIntervalSince1970) + Self.tokenLifetime, last + 1)
            try db.execute(sql: "UPDATE token SET replacedAt = ? WHERE client = ? AND replacedAt IS NULL", arguments: [now, client])
            try db.execute(
                sql: "DELETE FROM token WHERE client = ? AND replacedAt < ?",
                arguments: [client, now.addingTimeInterval(-Double(grace.components.seconds) - 1)])
            try db.execute(
                sql: "INSERT INTO token (userId, client, tokenHash, expiry) VALUES (?, ?, ?, ?)",
                arguments: [userID, client, Self.hash(token), expiry])
            return expiry
        }
        return Session(userID: userID, email: email, name: name, headers: [
            ("access-token", token), ("token-type", "Bearer"), ("client", client), ("expiry", String(expiry)), ("uid", email),
        ])
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hex
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<18).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}
