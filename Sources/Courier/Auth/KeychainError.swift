import Foundation

/// A Keychain call failed (`CredentialStore.keychain(service:account:)`, on Apple platforms), or the item it read
/// was not credentials Courier wrote. Its description says what happened in words an app can act
/// on. Platform-neutral, so that the words are tested on every platform.
struct KeychainError: Error, Sendable, CustomStringConvertible {
    /// The `OSStatus` the call returned (0 when the call succeeded but the item could not be read).
    let status: Int32
    /// Why the item could not be read, when the call succeeded.
    let reason: String?

    /// A failed call's status.
    init(status: Int32) {
        self.status = status
        self.reason = nil
    }

    private init(unreadable reason: String) {
        self.status = 0
        self.reason = reason
    }

    var description: String {
        if let reason { return "The Keychain item holds no credentials Courier can read: \(reason). Log in again to replace it." }
        let meaning: String
        switch status {
        case -25308: meaning = "the Keychain cannot be used now (errSecInteractionNotAllowed: the device is locked, or the app runs in the background before the first unlock)"
        case -34018: meaning = "the app is not entitled to the Keychain (errSecMissingEntitlement: check its keychain-access-groups entitlement and signing)"
        case -25299: meaning = "an item with this service and account exists already (errSecDuplicateItem)"
        case -25291: meaning = "no Keychain is available (errSecNotAvailable)"
        case -25293: meaning = "the Keychain refused the app's credentials (errSecAuthFailed)"
        case -128: meaning = "the user cancelled (errSecUserCanceled)"
        default: meaning = "the call returned OSStatus \(status)"
        }
        return "A Keychain call failed: \(meaning)."
    }

    /// Credentials from the item's data, or an error that says the item is not what Courier wrote
    /// (another app's item under the same service and account, or a damaged one).
    package static func decoded(_ data: Data, service: String, account: String) throws -> Credentials {
        do {
            return try JSONDecoder().decode(Credentials.self, from: data)
        } catch {
            throw KeychainError(unreadable: "the item \(service)/\(account) (\(data.count) bytes) is not Courier's credentials JSON (\(error))")
        }
    }
}
