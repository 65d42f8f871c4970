/// Where captured credentials persist between launches. Courier ships ``InMemoryCredentialStore``,
/// ``FileCredentialStore`` (Linux's default) and, where the `Security` framework exists,
/// `KeychainCredentialStore` (the default there).
public protocol CredentialStore: Sendable {
    /// The stored credentials, or `nil`.
    func load() throws -> Credentials?
    /// Replaces the stored credentials.
    func save(_ credentials: Credentials) throws
    /// Deletes the stored credentials.
    func clear() throws
}

/// Default credential stores.
enum CredentialStores {
    /// The platform's standard store for credentials of `origin`: the Keychain where `Security`
    /// exists, else a 0600 file in ``FileCredentialStore/defaultDirectory``.
    static func standard(for origin: String) -> any CredentialStore {
        #if canImport(Security)
        KeychainCredentialStore(service: "Courier", account: origin)
        #else
        FileCredentialStore(origin: origin)
        #endif
    }
}
