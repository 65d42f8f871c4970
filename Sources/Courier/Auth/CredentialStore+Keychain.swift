#if canImport(Security)
import Foundation
import Security

extension CredentialStore {
    /// Credentials in the Keychain as the generic password `service`/`account`, readable after
    /// first unlock on this device only (Apple platforms).
    public static func keychain(service: String, account: String) -> CredentialStore {
        let item = KeychainItem(service: service, account: account)
        return CredentialStore(load: item.load, save: item.save, clear: item.clear)
    }
}

/// One Keychain item holding credentials.
struct KeychainItem: Sendable {
    let service: String
    let account: String

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    /// Reads the item; `nil` when there is none.
    func load() throws -> Credentials? {
        var query = self.query
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw KeychainError(status: status) }
        return try KeychainError.decoded(data, service: service, account: account)
    }

    /// Adds or replaces the item.
    func save(_ credentials: Credentials) throws {
        let data = try JSONEncoder().encode(credentials)
        let update = [kSecValueData as String: data]
        var status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
        if status == errSecItemNotFound {
            var add = query
            add[kSecValueData as String] = data
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(add as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    /// Deletes the item.
    func clear() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}
#endif
