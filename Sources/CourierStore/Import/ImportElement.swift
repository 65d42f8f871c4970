import Courier
import Crypto
import Foundation

/// One object of an import: its JSON bytes as stored, and the parsed value when it is already known
/// (XML responses, nested models).
struct ImportElement: Sendable {
    var bytes: Data
    var json: JSONValue?

    /// SHA-256 of the bytes: an object whose digest is stored is skipped without decoding.
    var digest: Data { Data(SHA256.hash(data: bytes)) }

    /// The element for a parsed value, its bytes written canonically (keys sorted).
    init(json: JSONValue) throws {
        self.bytes = try Self.canonicalEncoder.encode(json)
        self.json = json
    }

    init(bytes: Data) {
        self.bytes = bytes
        self.json = nil
    }

    func parsed() throws -> JSONValue { try json ?? JSONValue.parse(bytes) }

    private static let canonicalEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
