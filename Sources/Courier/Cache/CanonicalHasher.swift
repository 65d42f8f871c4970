import Crypto
import Foundation

/// SHA-256 over a canonical, unambiguous form of parameters: each value tagged, strings and byte
/// runs length-prefixed, object keys sorted at every depth, binary values by their own digest.
/// Two parameter sets that mean the same give the same digest whatever their dictionary order.
struct CanonicalHasher {
    private var hash = SHA256()

    mutating func add(tag: UInt8) {
        withUnsafeBytes(of: tag) { hash.update(bufferPointer: $0) }
    }

    mutating func add(length: Int) {
        withUnsafeBytes(of: UInt64(length).littleEndian) { hash.update(bufferPointer: $0) }
    }

    mutating func add(string: String) {
        var text = string
        text.withUTF8 { bytes in
            add(length: bytes.count)
            hash.update(bufferPointer: UnsafeRawBufferPointer(bytes))
        }
    }

    mutating func add(bytes: some Sequence<UInt8>) {
        let data = Data(bytes)
        add(length: data.count)
        hash.update(data: data)
    }

    mutating func add(_ parameter: Parameter) {
        switch parameter {
        case .null: add(tag: 0)
        case .bool(let flag): add(tag: flag ? 2 : 1)
        case .int(let number):
            add(tag: 3)
            add(string: String(number))
        case .double(let number):
            add(tag: 4)
            add(string: JSONWriter.format(number))
        case .string(let text):
            add(tag: 5)
            add(string: text)
        case .array(let values):
            add(tag: 6)
            add(length: values.count)
            for value in values { add(value) }
        case .object(let members):
            add(tag: 7)
            add(length: members.count)
            for key in members.keys.sorted() {
                add(string: key)
                add(members[key]!)
            }
        case .data(let data, let fileName, let mimeType):
            add(tag: 8)
            add(string: fileName ?? "")
            add(string: mimeType ?? "")
            add(string: SHA256.hash(data: data).hex)
        case .file(let url, let fileName, let mimeType):
            add(tag: 9)
            add(string: fileName ?? url.lastPathComponent)
            add(string: mimeType ?? "")
            add(string: Self.fileDigest(url) ?? "unreadable:\(url.path)")
        }
    }

    mutating func add(_ json: JSONValue) { add(Parameter(json)) }

    func hex() -> String { hash.finalize().hex }

    /// The SHA-256 of a file's content, read in chunks.
    static func fileDigest(_ url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
        }
        return hash.finalize().hex
    }
}
