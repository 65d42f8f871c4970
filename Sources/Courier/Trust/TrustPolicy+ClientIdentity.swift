import Foundation

extension TrustPolicy {
    /// A client certificate and its private key, for servers that ask for one (mutual TLS).
    ///
    /// Its ``description`` names the form only: the key and the password never appear in logs,
    /// error messages, metrics or cassettes.
    public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible {
        package enum Storage: Sendable, Hashable {
            case pkcs12(Data, password: String)
            case pem(certificateChain: String, privateKey: String, password: String?)
        }

        package let storage: Storage

        /// A PKCS#12 file (`.p12`, `.pfx`) and its password.
        public static func pkcs12(_ data: Data, password: String) -> ClientIdentity {
            ClientIdentity(storage: .pkcs12(data, password: password))
        }

        /// A PEM certificate chain (the client's certificate first) and its PEM private key,
        /// encrypted with `password` when one is given.
        public static func pem(certificateChain: String, privateKey: String, password: String? = nil) -> ClientIdentity {
            ClientIdentity(storage: .pem(certificateChain: certificateChain, privateKey: privateKey, password: password))
        }

        /// `PKCS#12` or `PEM`; never the key or the password.
        public var description: String {
            switch storage {
            case .pkcs12: "PKCS#12"
            case .pem: "PEM"
            }
        }
    }
}
