import Crypto
import Foundation

/// SHA-256 over a canonical, unambiguous form of parameters: each value tagged, strings and byte
/// runs length-prefixed, object keys sorted at every depth, binary values by their own digest.
/// Two parameter sets that mean the same give the same digest whatever their dictionary order.
struct CanonicalHasher {
    /// The digest so far; made when the gathered bytes first grow large, else when finalized (a
    /// key whose digest is never needed costs none).
    private var hash: SHA256?
    /// Small writes gather here and reach the digest in one update (each update is a call into
    /// BoringSSL, which costs more than the bytes of a typical key).
    private var pending: [UInt8] = []

    init() { pending.reserveCapacity(256) }

    private mutating func flushIfLarge() {
        guard pending.count >= 4_096 else { return }
        flush()
    }

    /// Hands the gathered bytes to the digest, through its non-generic entry point (the generic
    /// `update(data:)` looks up conformances at run time on every call).
    private mutating func flush() {
        var digest = hash ?? SHA256()
        hash = nil  // one owner while it updates, so it is not copied
        pending.withUnsafeBytes { digest.update(bufferPointer: $0) }
        hash = digest
        pending.removeAll(keepingCapacity: true)
    }

    mutating func add(tag: UInt8) {
        pending.append(tag)
    }

    mutating func add(length: Int) {
        // Eight bytes, least significant first.
        var rest = UInt64(length)
        for _ in 0..<8 {
            pending.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    mutating func add(string: String) {
        add(length: string.utf8.count)
        pending.append(contentsOf: string.utf8)
        flushIfLarge()
    }

    /// `number` in decimal, as `add(string: String(number))` adds it, without making the string.
    mutating func add(decimal number: Int) {
        // Written from the end of a 20-byte buffer (the longest Int, with its sign), no allocation.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var start = buffer.count
            var rest = number.magnitude
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            if number < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            add(length: buffer.count - start)
            pending.append(contentsOf: buffer[start...])
        }
    }

    mutating func add(bytes: Data) {
        add(length: bytes.count)
        flush()
        var digest = hash ?? SHA256()
        hash = nil
        bytes.withUnsafeBytes { digest.update(bufferPointer: $0) }
        hash = digest
    }

    mutating func add(_ parameter: Parameter) {
        switch parameter {
        case .null: add(tag: 0)
        case .bool(let flag): add(tag: flag ? 2 : 1)
        case .int(let number):
            add(tag: 3)
            add(decimal: number)
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
            if members.count == 1, let (key, value) = members.first {
                add(string: key)
                add(value)
            } else {
                for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                    add(string: key)
                    add(value)
                }
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

    /// Everything added, when it is still short enough to be gathered here (no digest begun):
    /// what ``KeyMemo`` remembers a key by.
    var shortInput: [UInt8]? { hash == nil ? pending : nil }

    /// The digest of everything added.
    func finalize() -> SHA256Digest {
        var digest = hash ?? SHA256()
        pending.withUnsafeBytes { digest.update(bufferPointer: $0) }
        return digest.finalize()
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
