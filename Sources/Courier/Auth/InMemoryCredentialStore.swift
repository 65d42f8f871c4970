
/// Keeps credentials in memory only: nothing survives the process. For tests and for apps that
/// must not persist tokens.
public final class InMemoryCredentialStore: CredentialStore {
    private let stored: Locked<Credentials?>

    /// Creates a store, optionally holding credentials already.
    public init(_ credentials: Credentials? = nil) { stored = Locked(credentials) }

    /// The credentials held.
    public func load() throws -> Credentials? { stored.withLock { $0 } }

    /// Holds `credentials`.
    public func save(_ credentials: Credentials) throws { stored.withLock { $0 = credentials } }

    /// Forgets the credentials.
    public func clear() throws { stored.withLock { $0 = nil } }
}
