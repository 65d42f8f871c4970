#if canImport(Security) && !canImport(FoundationNetworking)
import Foundation
import Security

/// The trust policy on Apple platforms, for ``URLSessionTransport``'s TLS challenges.
extension TrustPolicy {
    /// Why this policy cannot be applied by URLSession here, or `nil`.
    func applicableOnApplePlatforms() -> CourierError? {
        if case .pem = clientIdentity?.storage {
            return unsupported(
                "the PEM client identity", by: "URLSessionTransport",
                because: "the Security framework takes a client identity as PKCS#12 (openssl pkcs12 -export makes one from PEM files)")
        }
        return nil
    }

    /// Evaluates a server's chain for `host`: the policy's roots, then its pins on the verified
    /// chain. `nil` when the server is trusted; otherwise the reason, in words.
    func refusal(of serverTrust: SecTrust, host: String) -> String? {
        if !roots.certificates.isEmpty || !roots.includesSystemRoots {
            let anchors = roots.certificates.compactMap { SecCertificateCreateWithData(nil, $0.derBytes as CFData) }
            guard anchors.count == roots.certificates.count else { return "a root certificate of the trust policy could not be read" }
            guard SecTrustSetAnchorCertificates(serverTrust, anchors as CFArray) == errSecSuccess,
                SecTrustSetAnchorCertificatesOnly(serverTrust, !roots.includesSystemRoots) == errSecSuccess
            else { return "the trust policy's roots could not be applied" }
        }
        guard SecTrustSetPolicies(serverTrust, SecPolicyCreateSSL(true, host as CFString)) == errSecSuccess else {
            return "the host name could not be checked"
        }
        var error: CFError?
        guard SecTrustEvaluateWithError(serverTrust, &error) else {
            let detail = error.map { CFErrorCopyDescription($0) as String } ?? "it is not trusted"
            return "its certificate chain is not trusted (\(detail))"
        }
        if let pins = pins(for: host) {
            let chain = (SecTrustCopyCertificateChain(serverTrust) as? [SecCertificate]) ?? []
            let digests = chain.compactMap { SubjectPublicKeyInfo.digest(certificate: SecCertificateCopyData($0) as Data) }
            guard pins.matches(chainDigests: digests) else {
                return "its certificate chain holds none of the public keys pinned for \(pins.host)"
            }
        }
        return nil
    }

    /// The PKCS#12 client identity as a credential; errors never quote the password.
    func clientCredential() throws(CourierError) -> URLCredential {
        guard case .pkcs12(let data, let password)? = clientIdentity?.storage else {
            throw CourierError(.invalidRequest, "The trust policy has no PKCS#12 client identity. No request was sent.")
        }
        var items: CFArray?
        let status = SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: password] as CFDictionary, &items)
        guard status == errSecSuccess, let first = (items as? [[String: Any]])?.first,
            let found = first[kSecImportItemIdentity as String], CFGetTypeID(found as CFTypeRef) == SecIdentityGetTypeID()
        else {
            throw CourierError(
                .invalidRequest,
                "The client identity (PKCS#12, \(data.count) bytes) could not be read (status \(status)): the password is wrong or the file is not PKCS#12 with a certificate and a key. No request was sent.")
        }
        let identity = unsafeDowncast(found as AnyObject, to: SecIdentity.self)
        let chain = (first[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
        return URLCredential(identity: identity, certificates: Array(chain.dropFirst()), persistence: .forSession)
    }
}
#endif
