import Foundation
import Logging

/// The client's captured credentials: what is injected into requests to the API's origin, what a
/// response may replace, and what ``APIClient/logout()`` clears.
///
/// The rotation rule, for APIs that issue a new token on every response: a response's headers
/// replace the stored ones unless both carry the expiry header and the response's expiry is older
/// (numerically smaller) than the stored one; without expiries, the response that arrives last
/// wins. Storage happens under the same lock as the decision, so the store never ends up behind
/// memory.
final class AuthenticationState: Sendable {
    private struct State {
        var credentials: Credentials? {
            didSet { scope = nil }
        }
        var version = 0
        /// The cache scope of ``credentials``, computed when first asked.
        var scope: String?
    }

    let origin: String
    let names: [String]
    let expiryName: String?
    /// The headers whose values identify the user (see ``ClientConfiguration/cacheScopeHeaders``).
    let scopeNames: [String]
    private let store: CredentialStore
    private let state: Locked<State>
    private let logger: Logger

    init(
        origin: String, names: [String], expiryName: String?, scopeNames: [String]? = nil,
        store: CredentialStore, logger: Logger
    ) {
        self.origin = origin
        self.names = names
        self.expiryName = expiryName
        self.scopeNames = scopeNames
            ?? names.first { $0.lowercased() == "uid" }.map { [$0] }
            ?? names.filter { $0.lowercased() != expiryName?.lowercased() }
        self.store = store
        self.logger = logger
        var loaded: Credentials?
        do {
            loaded = try store.load().flatMap { $0.origin == origin ? $0 : nil }
        } catch is DecodingError {
            logger.warning("Courier found corrupt stored credentials and removed them; starting signed out.")
            try? store.clear()
        } catch {
            // The store may be unavailable for now (a locked Keychain): keep what it holds.
            logger.warning("Courier could not read stored credentials; starting signed out: \(error)")
        }
        state = Locked(State(credentials: loaded))
    }

    /// The current credentials and their version.
    var current: (credentials: Credentials?, version: Int) {
        state.withLock { ($0.credentials, $0.version) }
    }

    /// The response cache's scope for the current user: ``CacheKey/publicScope`` when signed out,
    /// else a digest of the origin and the identifying headers' values.
    var cacheScope: String {
        state.withLock { state in
            if let scope = state.scope { return scope }
            let scope = state.credentials.map { credentials in
                var hasher = CanonicalHasher()
                hasher.add(string: origin)
                for name in scopeNames {
                    hasher.add(string: name.lowercased())
                    hasher.add(string: credentials.headers.first { $0.key.lowercased() == name.lowercased() }?.value ?? "")
                }
                return "user-" + hasher.finalize().withUnsafeBytes { $0.hex }.prefix(32)
            } ?? CacheKey.publicScope
            state.scope = scope
            return scope
        }
    }

    /// The headers to attach to a request for `url`: none for another origin.
    func headers(for url: URL) -> (headers: [String: String], version: Int) {
        guard url.origin == origin else { return ([:], current.version) }
        let (credentials, version) = current
        return (credentials?.headers ?? [:], version)
    }

    /// Takes the configured headers from a response of the API's origin, under the rotation rule.
    func capture(from response: TransportResponse) {
        guard response.url.origin == origin else { return }
        var received: [String: String] = [:]
        for name in names {
            if let value = response.headers[name], !value.isEmpty { received[name] = value }
        }
        guard !received.isEmpty else { return }
        state.withLock { state in
            var headers = state.credentials?.headers ?? [:]
            if let expiryName,
               let newExpiry = received[expiryName].flatMap(Double.init),
               let oldExpiry = headers[expiryName].flatMap(Double.init),
               newExpiry < oldExpiry {
                return
            }
            headers.merge(received) { _, new in new }
            let credentials = Credentials(headers: headers, origin: origin)
            guard credentials != state.credentials else { return }
            state.credentials = credentials
            state.version += 1
            do {
                try store.save(credentials)
            } catch {
                logger.warning("Courier could not store credentials: \(error)")
            }
        }
    }

    /// Forgets the credentials in memory and in the store.
    func clear() throws {
        try state.withLock { state in
            state.credentials = nil
            state.version += 1
            try store.clear()
        }
    }
}
