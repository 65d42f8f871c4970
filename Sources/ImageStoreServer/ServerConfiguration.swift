import Foundation

/// Where and how an ``ImageStoreServer`` runs.
public struct ServerConfiguration: Sendable {
    /// The address to listen on. Keep the default, loopback, unless you mean to expose the server.
    public var host: String
    /// The port; `0` picks a free one (read it from ``ImageStoreServer/port``).
    public var port: Int
    /// The SQLite database file; `nil` creates a temporary one that ``ImageStoreServer/stop()`` deletes.
    public var databasePath: String?

    /// Creates a configuration.
    public init(host: String = "127.0.0.1", port: Int = 0, databasePath: String? = nil) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
    }
}
