import Foundation

extension TrustPolicy {
    /// An X.509 certificate, kept as its DER bytes; the transport that uses it reads it in full.
    public struct Certificate: Sendable, Hashable {
        /// The certificate's DER encoding.
        public let derBytes: Data

        /// A certificate from its DER encoding (a `.cer` or `.der` file).
        ///
        /// - Throws: ``CourierError/Kind/invalidRequest`` when `derBytes` is not a DER structure.
        public init(derEncoded derBytes: Data) throws(CourierError) {
            guard derBytes.count > 2, derBytes.first == 0x30 else {
                throw CourierError(
                    .invalidRequest,
                    "A certificate of \(derBytes.count) bytes is not DER-encoded (it does not start with an ASN.1 sequence); "
                        + "for a PEM file (-----BEGIN CERTIFICATE-----) use Certificate.pemEncoded(_:).")
            }
            self.derBytes = derBytes
        }

        /// Every certificate of a PEM text (a `.pem` or `.crt` file, one or more
        /// `-----BEGIN CERTIFICATE-----` blocks), in order.
        ///
        /// - Throws: ``CourierError/Kind/invalidRequest`` when the text holds no certificate or a
        ///   block is not base64.
        public static func pemEncoded(_ text: String) throws(CourierError) -> [Certificate] {
            let blocks = try PEM.blocks(in: text, label: "CERTIFICATE")
            guard !blocks.isEmpty else {
                throw CourierError(.invalidRequest, "The PEM text holds no certificate (no -----BEGIN CERTIFICATE----- block).")
            }
            var certificates: [Certificate] = []
            for block in blocks { certificates.append(try Certificate(derEncoded: block)) }
            return certificates
        }
    }
}

/// PEM's text form (RFC 7468): base64 between `-----BEGIN label-----` and `-----END label-----`.
package enum PEM {
    /// The decoded bytes of each `label` block of `text`, in order.
    package static func blocks(in text: String, label: String) throws(CourierError) -> [Data] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var blocks: [Data] = []
        var rest = text[...]
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw CourierError(.invalidRequest, "A PEM \(label) block has no \(end) line.")
            }
            let body = rest[start.upperBound..<stop.lowerBound]
            guard let bytes = Data(base64Encoded: String(body), options: .ignoreUnknownCharacters), !bytes.isEmpty else {
                throw CourierError(.invalidRequest, "A PEM \(label) block is not base64.")
            }
            blocks.append(bytes)
            rest = rest[stop.upperBound...]
        }
        return blocks
    }
}
