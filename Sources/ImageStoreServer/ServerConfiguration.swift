import Foundation

/// Where and how an ``ImageStoreServer`` runs.
public struct ServerConfiguration: Sendable {
    /// The address to listen on. Keep the default, loopback, unless you mean to expose the server.
    public var host: String
    /// The port; `0` picks a free one (read it from ``ImageStoreServer/port``).
    public var port: Int
    /// The SQLite database file; `nil` creates a temporary one that ``ImageStoreServer/stop()`` deletes.
    public var databasePath: String?

    /// An account created on every start if it does not exist, so demos and tests can sign in;
    /// `nil` for none. Default: `demo@example.com` / `password`.
    public var demoAccount: (email: String, password: String)?
    /// The bcrypt cost for password hashes (each step doubles the work; 8 keeps a sample server's
    /// start fast, a production server would use 12 or more).
    public var bcryptCost: UInt8
    /// How long an access token stays valid after a newer one replaced it, so requests already in
    /// flight with it still succeed (devise_token_auth's batch window).
    public var replacedTokenGrace: Duration
    /// The largest image `POST /images` and `PATCH /images/{id}` accept, in bytes (10 MB by
    /// default); a larger one is refused with 413 and nothing is stored.
    public var maximumImageSize: Int
    /// Routes and middleware other modules add (``ServerExtension``), in order; none by default.
    public var extensions: [any ServerExtension] = []
    /// A certificate chain (the server's certificate first) and its private key, both PEM, to
    /// serve HTTPS with (HTTP/1.1); `nil`, the default, for plain HTTP.
    public var tls: (certificateChainPEM: String, privateKeyPEM: String)?

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 0, databasePath: String? = nil,
        demoAccount: (email: String, password: String)? = ("demo@example.com", "password"),
        bcryptCost: UInt8 = 8, replacedTokenGrace: Duration = .seconds(30), maximumImageSize: Int = 10 << 20
    ) {
        self.maximumImageSize = maximumImageSize
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.demoAccount = demoAccount
        self.bcryptCost = bcryptCost
        self.replacedTokenGrace = replacedTokenGrace
    }
}
