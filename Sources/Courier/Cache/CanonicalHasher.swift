import Crypto
import Foundation

/// SHA-256 over a canonical, unambiguous form of parameters: each value tagged, strings and byte
/// runs length-prefixed, object keys sorted at every depth, binary values by their own digest.
/// Two parameter sets that mean the same give the same digest whatever their dictionary order.
struct CanonicalHasher {
    private var hash = SHA256()
    /// Small writes gather here and reach the digest in one update (each update is a call into
    /// BoringSSL, which costs more than the bytes of a typical key).
    private var pending: [UInt8] = []

    init() { pending.reserveCapacity(256) }

    private mutating func flushIfLarge() {
        guard pending.count >= 4_096 else { return }
        hash.update(data: pending)
        pending.removeAll(keepingCapacity: true)
    }

    mutating func add(tag: UInt8) {
        pending.append(tag)
    }

    mutating func add(length: Int) {
        withUnsafeBytes(of: UInt64(length).littleEndian) { pending.append(contentsOf: $0) }
    }

    mutating func add(string: String) {
        add(length: string.utf8.count)
        pending.append(contentsOf: string.utf8)
        flushIfLarge()
    }

    mutating func add(bytes: Data) {
        add(length: bytes.count)
        hash.update(data: pending)
        pending.removeAll(keepingCapacity: true)
        hash.update(data: bytes)
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

    func hex() -> String {
        var hash = hash
        hash.update(data: pending)
        return hash.finalize().withUnsafeBytes { $0.hex }
    }

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
