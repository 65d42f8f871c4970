import AsyncHTTPClient
import Courier
import Foundation
import NIOSSL

extension AsyncHTTPClientTransport {
    /// An HTTP proxy requests go through: a `CONNECT` tunnel per connection, with Basic
    /// credentials when given. Its ``description`` never shows the password.
    public struct Proxy: Sendable, Hashable, CustomStringConvertible {
        /// The proxy's host name or address.
        public var host: String
        /// The proxy's port.
        public var port: Int
        /// The user name sent as `Proxy-Authorization: Basic` when the proxy asks; `nil` for none.
        public var user: String?
        /// The password sent with ``user``; never shown in ``description``.
        public var password: String?

        /// A proxy at `host`:`port`, with Basic credentials when `user` is given.
        public init(host: String, port: Int, user: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
        }

        /// `proxy 127.0.0.1:8888 (user alice)`: the password is never shown.
        public var description: String {
            "proxy \(host):\(port)" + (user.map { " (user \($0))" } ?? "")
        }

        /// async-http-client's form, or the reason it cannot be used.
        func clientProxy() throws(CourierError) -> HTTPClient.Configuration.Proxy {
            guard !host.isEmpty, (1...65535).contains(port) else {
                throw CourierError(.invalidRequest, "The proxy \(host):\(port) needs a host and a port between 1 and 65535. No request was sent.")
            }
            guard let user else { return .server(host: host, port: port) }
            guard !user.contains(":") else {
                throw CourierError(.invalidRequest, "The proxy user \"\(user)\" contains \":\", which Basic credentials cannot carry. No request was sent.")
            }
            return .server(host: host, port: port, authorization: .basic(username: user, password: password ?? ""))
        }
    }
}

extension TrustPolicy {
    /// swift-nio-ssl's configuration for this policy on async-http-client, or why it cannot be
    /// made: a certificate or key that cannot be read (never quoting the key or password). Pins
    /// are checked apart, on each connection (``PinnedConnections``).
    func tlsConfiguration() throws(CourierError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        guard !isSystem else { return configuration }
        configuration.minimumTLSVersion = minimumTLSVersion >= .v1_3 ? .tlsv13 : .tlsv12
        if !roots.certificates.isEmpty || !roots.includesSystemRoots {
            var certificates: [NIOSSLCertificate] = []
            for (index, root) in roots.certificates.enumerated() {
                do {
                    certificates.append(try NIOSSLCertificate(bytes: [UInt8](root.derBytes), format: .der))
                } catch {
                    throw CourierError(
                        .invalidRequest, "Root certificate \(index + 1) of the trust policy is not a readable X.509 certificate (\(error)). No request was sent.",
                        underlyingError: error)
                }
            }
            if roots.includesSystemRoots {
                configuration.additionalTrustRoots = [.certificates(certificates)]
            } else {
                configuration.trustRoots = .certificates(certificates)
            }
        }
        if let clientIdentity {
            let (chain, key) = try clientIdentity.certificateAndKey()
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
        }
        return configuration
    }
}

extension TrustPolicy.ClientIdentity {
    /// The certificate chain and key, read with swift-nio-ssl; errors never quote the password.
    func certificateAndKey() throws(CourierError) -> ([NIOSSLCertificate], NIOSSLPrivateKey) {
        switch storage {
        case .pkcs12(let data, let password):
            do {
                let bundle = try NIOSSLPKCS12Bundle(buffer: [UInt8](data), passphrase: Array(password.utf8))
                guard !bundle.certificateChain.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
                return (bundle.certificateChain, bundle.privateKey)
            } catch {
                throw CourierError(
                    .invalidRequest,
                    "The client identity (PKCS#12, \(data.count) bytes) could not be read: the password is wrong or the file is not PKCS#12 with a certificate and a key. No request was sent.",
                    underlyingError: error)
            }
        case .pem(let chainText, let keyText, let password):
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMBytes(Array(chainText.utf8))
            } catch {
                throw CourierError(
                    .invalidRequest, "The client identity's certificate chain is not PEM certificates. No request was sent.", underlyingError: error)
            }
            guard !chain.isEmpty else {
                throw CourierError(.invalidRequest, "The client identity's certificate chain holds no certificate. No request was sent.")
            }
            do {
                // Always a passphrase callback: without one, BoringSSL asks for the passphrase of an
                // encrypted key on standard input.
                let passphrase = Array((password ?? "").utf8)
                let key = try NIOSSLPrivateKey(bytes: Array(keyText.utf8), format: .pem) { (setter: NIOSSLPassphraseSetter<[UInt8]>) in
                    setter(passphrase)
                }
                return (chain, key)
            } catch {
                throw CourierError(
                    .invalidRequest,
                    "The client identity's private key could not be read: it is not a PEM key, or it is encrypted and the password is wrong or missing. No request was sent.",
                    underlyingError: error)
            }
        }
    }
}
