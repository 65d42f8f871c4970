import Crypto
import Foundation

/// The `.apicache` file format.
///
/// ```
/// "CRCH" · version (1 byte) · header length (UInt32 LE) · header · checksum (32 bytes) · body
/// ```
/// The header holds the key's digest, status, URL, stored time, the stored header fields, the
/// selecting header fields of a `Vary` response (version 2; version 1 entries, written before,
/// have none and stay readable) and the body length; the checksum is the SHA-256 of header and body together, so a flipped bit anywhere, a
/// truncated body or a file written for another key is refused.
enum CacheEntryCodec {
    static let magic: [UInt8] = Array("CRCH".utf8)
    static let version: UInt8 = 2
    /// The versions this Courier reads.
    static let readableVersions: ClosedRange<UInt8> = 1...2

    enum Failure: Error, CustomStringConvertible {
        case tooShort, notAnEntry, unknownVersion(UInt8), truncated, checksumMismatch, foreignKey, malformedHeader

        var description: String {
            switch self {
            case .tooShort: "the file is shorter than an entry header"
            case .notAnEntry: "the file is not a Courier cache entry"
            case .unknownVersion(let version): "the entry has format version \(version), this Courier reads versions up to \(CacheEntryCodec.version)"
            case .truncated: "the entry is truncated"
            case .checksumMismatch: "the entry's checksum does not match its content"
            case .foreignKey: "the entry was written for another request"
            case .malformedHeader: "the entry header is malformed"
            }
        }
    }

    static func encode(_ response: CachedResponse, digest: String) -> Data {
        var header = ByteWriter()
        header.write(digest)
        header.write(UInt64(response.statusCode))
        header.write(response.url.absoluteString)
        header.write(response.storedAt.timeIntervalSinceReferenceDate.bitPattern)
        header.write(UInt64(response.headers.count))
        for field in response.headers {
            header.write(field.name)
            header.write(field.value)
        }
        header.write(UInt64(response.selection.count))
        for (name, value) in response.selection.sorted(by: { $0.key < $1.key }) {
            header.write(name)
            header.write(value)
        }
        header.write(UInt64(response.body.count))
        var hash = SHA256()
        hash.update(data: header.bytes)
        hash.update(data: response.body)
        var file = Data(capacity: 9 + header.bytes.count + 32 + response.body.count)
        file.append(contentsOf: magic)
        file.append(version)
        withUnsafeBytes(of: UInt32(header.bytes.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(contentsOf: header.bytes)
        file.append(contentsOf: hash.finalize())
        file.append(response.body)
        return file
    }

    /// The entry in `bytes` (a whole file), checked: the checksum first, so the fields are read
    /// from bytes known to be the ones written (their text needs no UTF-8 validation then).
    static func decode(_ bytes: [UInt8], digest: String) throws(Failure) -> CachedResponse {
        guard bytes.count >= 9 + 32 else { throw .tooShort }
        guard bytes[0..<4].elementsEqual(magic) else { throw .notAnEntry }
        guard readableVersions.contains(bytes[4]) else { throw .unknownVersion(bytes[4]) }
        let headerLength = Int(UInt32(bytes[5]) | UInt32(bytes[6]) << 8 | UInt32(bytes[7]) << 16 | UInt32(bytes[8]) << 24)
        let headerEnd = 9 + headerLength
        guard headerEnd + 32 <= bytes.count else { throw .truncated }
        let bodyStart = headerEnd + 32
        var hash = SHA256()
        bytes.withUnsafeBytes { file in
            hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: file[9..<headerEnd]))
            hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: file[bodyStart...]))
        }
        guard hash.finalize().elementsEqual(bytes[headerEnd..<bodyStart]) else {
            // A length field cut short, or bytes changed: say which when the lengths tell.
            var reader = ByteReader(bytes: bytes[9..<headerEnd])
            if reader.skipToBodyLength().map({ Int(exactly: $0) != bytes.count - bodyStart }) == true { throw .truncated }
            throw .checksumMismatch
        }
        var reader = ByteReader(bytes: bytes[9..<headerEnd])
        guard let storedDigest = reader.string(), let status = reader.integer(), let urlText = reader.string(),
              let stored = reader.integer(), let headerCount = reader.integer(), headerCount < 1_000
        else { throw .malformedHeader }
        var headers = HTTPHeaders()
        headers.reserveCapacity(Int(headerCount))
        for _ in 0..<headerCount {
            guard let name = reader.string(), let value = reader.string() else { throw .malformedHeader }
            headers.add(name: name, value: value)
        }
        var selection: [String: String] = [:]
        if bytes[4] >= 2 {
            guard let count = reader.integer(), count < 1_000 else { throw .malformedHeader }
            for _ in 0..<count {
                guard let name = reader.string(), let value = reader.string() else { throw .malformedHeader }
                selection[name] = value
            }
        }
        guard let bodyLength = reader.integer(), reader.isAtEnd, let url = URL(string: urlText), status < 1_000 else {
            throw .malformedHeader
        }
        guard Int(exactly: bodyLength) == bytes.count - bodyStart else { throw .truncated }
        guard storedDigest == digest else { throw .foreignKey }
        // The fields as they were stored: filtered when the entry was made.
        var response = CachedResponse(
            statusCode: Int(status), storedHeaders: headers, body: Data(bytes[bodyStart...]), url: url,
            storedAt: Date(timeIntervalSinceReferenceDate: Double(bitPattern: stored)))
        response.selection = selection
        response.vary = Vary(headers)
        return response
    }
}

/// Little-endian fields for the entry header.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func write(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ text: String) {
        let utf8 = Array(text.utf8)
        write(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }
}

/// Reads what ``ByteWriter`` wrote; `nil` past the end.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    private var position: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func integer() -> UInt64? {
        guard bytes.endIndex - position >= 8 else { return nil }
        var value: UInt64 = 0
        for offset in 0..<8 { value |= UInt64(bytes[position + offset]) << (8 * UInt64(offset)) }
        position += 8
        return value
    }

    /// Text whose bytes the checksum confirmed: read as written, without validation.
    mutating func string() -> String? {
        guard let length = integer(), length <= UInt64(bytes.endIndex - position) else { return nil }
        let end = position + Int(length)
        defer { position = end }
        return bytes.withUnsafeBufferPointer { buffer in
            let start = position - bytes.startIndex
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<(start + Int(length))]), as: UTF8.self)
        }
    }

    /// The body length at the end of the header, skipping everything before it; `nil` when the
    /// header does not hold one where its fields say.
    mutating func skipToBodyLength() -> UInt64? {
        func skipString() -> Bool {
            guard let length = integer(), length <= UInt64(bytes.endIndex - position) else { return false }
            position += Int(length)
            return true
        }
        guard skipString(), integer() != nil, skipString(), integer() != nil, let fields = integer(), fields < 1_000 else { return nil }
        for _ in 0..<(fields * 2) where !skipString() { return nil }
        // A version-1 header has no selection; the body length is then the last field.
        if bytes.endIndex - position == 8 { return integer() }
        guard let selected = integer(), selected < 1_000 else { return nil }
        for _ in 0..<(selected * 2) where !skipString() { return nil }
        return integer()
    }
}
