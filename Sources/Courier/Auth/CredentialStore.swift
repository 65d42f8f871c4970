import Foundation

/// Where captured credentials persist between launches: ``file(_:)`` or ``file(origin:directory:)``
/// (Linux's default), ``inMemory(_:)``, ``keychain(service:account:)`` where the `Security`
/// framework exists (the default there), or your own three functions through
/// ``init(load:save:clear:)``.
public struct CredentialStore: Sendable {
    private let loader: @Sendable () throws -> Credentials?
    private let saver: @Sendable (Credentials) throws -> Void
    private let clearer: @Sendable () throws -> Void

    /// A store made of three functions: read the stored credentials (`nil` for none), replace
    /// them, delete them. Each may throw; a `load` that throws leaves the client signed out
    /// without deleting anything.
    public init(
        load: @escaping @Sendable () throws -> Credentials?, save: @escaping @Sendable (Credentials) throws -> Void,
        clear: @escaping @Sendable () throws -> Void
    ) {
        loader = load
        saver = save
        clearer = clear
    }

    /// The stored credentials, or `nil`.
    public func load() throws -> Credentials? { try loader() }

    /// Replaces the stored credentials.
    public func save(_ credentials: Credentials) throws { try saver(credentials) }

    /// Deletes the stored credentials.
    public func clear() throws { try clearer() }

    /// Credentials in memory only, optionally holding some already: nothing survives the process.
    /// For tests and for apps that must not persist tokens.
    public static func inMemory(_ credentials: Credentials? = nil) -> CredentialStore {
        let stored = Locked(credentials)
        return CredentialStore(
            load: { stored.withLock { $0 } }, save: { new in stored.withLock { $0 = new } }, clear: { stored.withLock { $0 = nil } })
    }

    /// Credentials in a JSON file at `url` readable by the user alone (mode 0600, in a 0700
    /// directory). Writes go to a new 0600 file that replaces the old one in a single rename, so a
    /// crash never leaves a half-written file and the token is never readable by others, not even
    /// briefly. A file that exists but is not credentials makes ``load()`` throw.
    public static func file(_ url: URL) -> CredentialStore {
        CredentialStore(
            load: {
                guard FileManager.default.fileExists(atPath: url.path) else { return nil }
                return try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: url))
            },
            save: { credentials in
                let directory = url.deletingLastPathComponent()
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let data = try JSONEncoder().encode(credentials)
                try AtomicFile.write(data, to: url, temporary: AtomicFile.temporaryFile(beside: url), permissions: 0o600, durable: true)
            },
            clear: {
                guard FileManager.default.fileExists(atPath: url.path) else { return }
                try FileManager.default.removeItem(at: url)
            })
    }

    /// ``file(_:)`` for `origin` in `directory` (`$XDG_STATE_HOME/courier`, else
    /// `~/.local/state/courier`, when `nil`), one file per origin.
    public static func file(origin: String, directory: URL? = nil) -> CredentialStore {
        file(fileURL(origin: origin, directory: directory))
    }

    /// The file ``file(origin:directory:)`` uses.
    static func fileURL(origin: String, directory: URL? = nil) -> URL {
        let name = origin.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
        return (directory ?? defaultDirectory).appendingPathComponent("\(name).credentials")
    }

    /// `$XDG_STATE_HOME/courier`, else `~/.local/state/courier` (the XDG base directory for state).
    static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("courier")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state/courier")
    }

    /// The platform's standard store for credentials of `origin`: the Keychain where `Security`
    /// exists, else a 0600 file in ``defaultDirectory``.
    static func standard(for origin: String) -> CredentialStore {
        #if canImport(Security)
        keychain(service: "Courier", account: origin)
        #else
        file(origin: origin)
        #endif
    }
}
