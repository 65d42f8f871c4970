import Foundation

/// Keeps credentials in a JSON file readable by the user alone (mode 0600, in a 0700 directory).
///
/// Writes go to a new 0600 file that replaces the old one in a single rename, so a crash never
/// leaves a half-written file and the token is never readable by others, not even briefly.
public struct FileCredentialStore: CredentialStore {
    /// The file.
    public let url: URL

    /// A store in `url`.
    public init(url: URL) { self.url = url }

    /// A store for `origin` in `directory` (``defaultDirectory`` when `nil`), one file per origin.
    public init(origin: String, directory: URL? = nil) {
        let name = origin.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
        url = (directory ?? Self.defaultDirectory).appendingPathComponent("\(name).credentials")
    }

    /// `$XDG_STATE_HOME/courier`, else `~/.local/state/courier` (the XDG base directory for state).
    static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("courier")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state/courier")
    }

    /// Reads the file; `nil` when there is none.
    /// - Throws: when the file exists but cannot be read or is not valid credentials.
    public func load() throws -> Credentials? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(Credentials.self, from: Data(contentsOf: url))
    }

    /// Writes the file atomically with mode 0600.
    public func save(_ credentials: Credentials) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder().encode(credentials)
        try AtomicFile.write(data, to: url, temporary: AtomicFile.temporaryFile(beside: url), permissions: 0o600, durable: true)
    }

    /// Deletes the file.
    public func clear() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}
