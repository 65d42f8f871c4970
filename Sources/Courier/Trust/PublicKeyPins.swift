import Crypto
import Foundation

extension TrustPolicy {
    /// The public keys a host's certificate chain must hold one of: SHA-256 digests of their
    /// SubjectPublicKeyInfo, base64 (as `openssl x509 -pubkey -noout | openssl pkey -pubin
    /// -outform der | openssl dgst -sha256 -binary | base64` prints them).
    ///
    /// At least two distinct pins are required: the key in use and a backup kept offline, so that
    /// a key that must be replaced does not lock the app out.
    public struct PublicKeyPins: Sendable, Hashable {
        /// The host, lowercased: a name (`api.example.com`) or a wildcard of one label
        /// (`*.example.com`).
        package let host: String
        /// The pins, base64 SHA-256 digests.
        package let sha256: [String]
        /// Which certificates of the chain may match.
        package let scope: Scope
        /// The pins' bytes.
        package let digests: Set<Data>

        /// Pins for `host`.
        ///
        /// - Throws: ``CourierError/Kind/invalidRequest`` for a host that is not a name or a
        ///   one-label wildcard, a pin that is not the base64 of 32 bytes, or fewer than two
        ///   distinct pins.
        public init(host: String, sha256: [String], scope: Scope = .anyCertificate) throws(CourierError) {
            let host = host.lowercased()
            let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            let nameBytes: (UInt8) -> Bool = { byte in
                byte == UInt8(ascii: "-") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
            guard !name.isEmpty, labels.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(nameBytes) }), !host.hasPrefix("*.") || labels.count >= 2
            else {
                throw CourierError(
                    .invalidRequest, "Pins name a host such as api.example.com, or a wildcard of one label such as *.example.com; \"\(host)\" is neither.")
            }
            var digests = Set<Data>()
            for pin in sha256 {
                guard let digest = Data(base64Encoded: pin), digest.count == SHA256.byteCount else {
                    throw CourierError(.invalidRequest, "The pin \"\(pin)\" for \(host) is not the base64 of a SHA-256 digest (32 bytes).")
                }
                digests.insert(digest)
            }
            guard digests.count >= 2 else {
                throw CourierError(
                    .invalidRequest,
                    "\(host) has \(digests.count) distinct pin\(digests.count == 1 ? "" : "s"): give at least two, the key in use and a backup key kept offline, so that replacing a key does not lock the app out.")
            }
            self.host = host
            self.sha256 = sha256
            self.scope = scope
            self.digests = digests
        }

        /// Whether a chain whose keys have these SPKI digests (leaf first) holds a pin.
        package func matches(chainDigests: [Data]) -> Bool {
            let candidates = scope == .leaf ? Array(chainDigests.prefix(1)) : chainDigests
            return candidates.contains { digests.contains($0) }
        }

        /// Which certificates of a chain a pin may match.
        public struct Scope: Sendable, Hashable {
            let name: String
            /// The server's own certificate only: checked by both transports.
            public static let leaf = Scope(name: "leaf")
            /// Any certificate of the verified chain: the server's, an intermediate or the root.
            /// `AsyncHTTPClientTransport` cannot check it (it sees the server's certificate only)
            /// and refuses a policy with such pins.
            public static let anyCertificate = Scope(name: "anyCertificate")
        }
    }
}

/// The SHA-256 of a certificate's public key: its SubjectPublicKeyInfo, as pins name it.
///
/// The `Courier` product depends on nothing that reads X.509 (swift-certificates lives outside
/// its allowed dependencies), and a platform may give a chain only as DER certificates; so this
/// reads just enough DER (X.690) to find the SPKI: the seventh field of `tbsCertificate`, or the
/// sixth where the explicit `[0]` version is left out (RFC 5280 §4.1).
package enum SubjectPublicKeyInfo {
    /// The SHA-256 of the SPKI of the DER certificate `certificate`; `nil` when it cannot be read.
    package static func digest(certificate: Data) -> Data? {
        spki(certificate: certificate).map { Data(SHA256.hash(data: $0)) }
    }

    /// The SPKI's DER bytes (tag and length included) of the DER certificate `certificate`.
    package static func spki(certificate: Data) -> Data? {
        let bytes = [UInt8](certificate)
        guard let outer = element(bytes, at: 0), outer.tag == 0x30,
            let tbs = element(bytes, at: outer.contentStart), tbs.tag == 0x30
        else { return nil }
        var position = tbs.contentStart
        var fields: [Element] = []
        while position < tbs.end, fields.count < 7, let field = element(bytes, at: position), field.end <= tbs.end {
            fields.append(field)
            position = field.end
        }
        let index = fields.first?.tag == 0xA0 ? 6 : 5
        guard fields.count > index, fields[index].tag == 0x30 else { return nil }
        return Data(bytes[fields[index].start..<fields[index].end])
    }

    /// A DER element: where it starts, its tag, where its content starts and where it ends.
    struct Element {
        let start: Int
        let tag: UInt8
        let contentStart: Int
        let end: Int
    }

    /// The element at `start` of `bytes`; `nil` for one that is cut short or has a length DER
    /// does not allow (indefinite, or over four bytes).
    static func element(_ bytes: [UInt8], at start: Int) -> Element? {
        guard start + 2 <= bytes.count else { return nil }
        let tag = bytes[start]
        guard tag & 0x1F != 0x1F else { return nil }  // a multi-byte tag: none in the fields read here
        var length = Int(bytes[start + 1])
        var contentStart = start + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), contentStart + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[contentStart..<(contentStart + count)] { length = length << 8 | Int(byte) }
            contentStart += count
        }
        let (end, overflow) = contentStart.addingReportingOverflow(length)
        guard !overflow, end <= bytes.count else { return nil }
        return Element(start: start, tag: tag, contentStart: contentStart, end: end)
    }
}
