import Foundation

/// Whom a transport trusts over HTTPS, and what it shows as the client: one value for every
/// transport (``URLSessionTransport``, `AsyncHTTPClientTransport`).
///
/// ```swift
/// let policy = TrustPolicy(
///     roots: .adding(try TrustPolicy.Certificate.pemEncoded(companyCA)),
///     clientIdentity: .pkcs12(identityFile, password: password),
///     minimumTLSVersion: .v1_3)
/// ```
///
/// - ``roots``: the system's roots (the default), the system's and yours, or only yours.
/// - ``pins``: SHA-256 digests of public keys (SPKI) per host, a backup pin required; a chain that
///   holds none of a host's pins is refused even when it is otherwise trusted.
/// - ``clientIdentity``: a certificate and key for mutual TLS, as PKCS#12 or PEM.
/// - ``minimumTLSVersion``: TLS 1.2 unless you ask for 1.3.
///
/// A transport refuses a policy it cannot carry out in full, with
/// ``CourierError/Kind/invalidRequest`` for every request and before anything is sent: a policy is
/// never applied in part (each transport's documentation says what it can do). Refused
/// handshakes fail with ``CourierError/Kind/untrustedServer`` or
/// ``CourierError/Kind/clientCertificateRefused``, naming the host and the reason.
///
/// Secrets stay secret: a policy's ``description`` names what it holds, never a key or a password,
/// and no error message, log, metric or cassette carries them.
public struct TrustPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The certificates a server's chain may end in.
    public var roots: Roots
    /// Public-key pins per host.
    public var pins: [PublicKeyPins]
    /// The certificate and key presented when a server asks for one.
    public var clientIdentity: ClientIdentity?
    /// The oldest TLS version accepted.
    public var minimumTLSVersion: TLSVersion

    /// A policy; every part defaults to what the system does.
    public init(
        roots: Roots = .system, pins: [PublicKeyPins] = [], clientIdentity: ClientIdentity? = nil, minimumTLSVersion: TLSVersion = .v1_2
    ) {
        self.roots = roots
        self.pins = pins
        self.clientIdentity = clientIdentity
        self.minimumTLSVersion = minimumTLSVersion
    }

    /// The system's trust: its roots, no pins, no client certificate, TLS 1.2 or later.
    public static var system: TrustPolicy { TrustPolicy() }

    /// Whether this is the system's trust and nothing more.
    package var isSystem: Bool { self == .system }

    /// The pins for `host`: those named for it exactly, else those of a wildcard (`*.example.com`
    /// covers `api.example.com`, not `example.com` nor `a.b.example.com`); `nil` when none apply.
    package func pins(for host: String) -> PublicKeyPins? {
        let host = host.lowercased()
        if let exact = pins.first(where: { $0.host == host }) { return exact }
        guard let dot = host.firstIndex(of: ".") else { return nil }
        return pins.first { $0.host == "*" + host[dot...] }
    }

    /// What the policy holds, without secrets: `TrustPolicy(roots: system + 1 certificate, pins: api.example.com, client identity: PKCS#12, TLS 1.3 or later)`.
    public var description: String {
        var parts = ["roots: \(roots)"]
        if !pins.isEmpty { parts.append("pins: " + pins.map(\.host).joined(separator: ", ")) }
        if let clientIdentity { parts.append("client identity: \(clientIdentity)") }
        parts.append("\(minimumTLSVersion) or later")
        return "TrustPolicy(" + parts.joined(separator: ", ") + ")"
    }
}

extension TrustPolicy {
    /// The certificates a server's chain may end in.
    public struct Roots: Sendable, Hashable, CustomStringConvertible {
        /// Whether the system's roots are trusted.
        package let includesSystemRoots: Bool
        /// Roots trusted besides (or instead of) the system's.
        package let certificates: [Certificate]

        /// The system's roots.
        public static let system = Roots(includesSystemRoots: true, certificates: [])

        /// The system's roots and `certificates` (a company CA, say).
        public static func adding(_ certificates: [Certificate]) -> Roots {
            Roots(includesSystemRoots: true, certificates: certificates)
        }

        /// `certificates` alone: a server whose chain ends elsewhere is refused.
        public static func only(_ certificates: [Certificate]) -> Roots {
            Roots(includesSystemRoots: false, certificates: certificates)
        }

        /// `system`, `system + 2 certificates`, `only 1 certificate`.
        public var description: String {
            let count = "\(certificates.count) certificate" + (certificates.count == 1 ? "" : "s")
            if !includesSystemRoots { return "only " + count }
            return certificates.isEmpty ? "system" : "system + " + count
        }
    }

    /// A TLS protocol version.
    public struct TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The version's number times ten: 12 for TLS 1.2.
        package let number: Int

        /// TLS 1.2.
        public static let v1_2 = TLSVersion(number: 12)
        /// TLS 1.3.
        public static let v1_3 = TLSVersion(number: 13)

        /// Whether `lhs` is an older version than `rhs`.
        public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.number < rhs.number }

        /// `TLS 1.2`.
        public var description: String { "TLS \(number / 10).\(number % 10)" }
    }

    /// The refusal of a transport that cannot carry out `part` of this policy.
    package func unsupported(_ part: String, by transport: String, because reason: String) -> CourierError {
        CourierError(
            .invalidRequest,
            "\(transport) cannot apply \(part) of this trust policy: \(reason). No request was sent: "
                + "a trust policy is applied in full or not at all.")
    }
}

extension CourierError {
    /// This error, about `url`: a transport's refusal of its own settings, for each request.
    package func at(_ url: URL) -> CourierError {
        CourierError(kind, message, url: url, underlyingError: underlyingError)
    }
}
