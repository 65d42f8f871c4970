import Foundation

/// What the cache knows about its entries without reading them: size and access count per file.
/// Saved as a small text file beside the entries so access counts survive restarts; a missing or
/// unreadable index is rebuilt from a directory listing (counts start again at zero).
struct CacheIndex: Sendable {
    struct Record: Sendable, Hashable {
        var size: Int
        var accessCount: Int
    }

    static let fileName = "index.courier"
    private static let firstLine = "courier-cache-index 1"

    private(set) var records: [String: Record] = [:]
    private(set) var totalSize = 0

    subscript(relativePath: String) -> Record? { records[relativePath] }

    mutating func stored(_ relativePath: String, size: Int) {
        let count = records[relativePath]?.accessCount ?? 0
        set(relativePath, Record(size: size, accessCount: count))
    }

    mutating func accessed(_ relativePath: String) {
        guard var record = records[relativePath] else { return }
        record.accessCount += 1
        records[relativePath] = record
    }

    mutating func set(_ relativePath: String, _ record: Record?) {
        totalSize -= records[relativePath]?.size ?? 0
        records[relativePath] = record
        totalSize += record?.size ?? 0
    }

    /// Forgets every record under a folder prefix (`scope/` or `scope/path/`), or all with `""`.
    mutating func removeAll(under prefix: String) {
        for path in records.keys where path.hasPrefix(prefix) { set(path, nil) }
    }

    /// Records to evict, least accessed first, until `limit` bytes remain; never `keeping`.
    func evictions(toFit limit: Int, keeping: String) -> [String] {
        guard totalSize > limit else { return [] }
        var remaining = totalSize
        var chosen: [String] = []
        for (path, record) in records.sorted(by: { $0.value.accessCount < $1.value.accessCount }) where path != keeping {
            guard remaining > limit else { break }
            chosen.append(path)
            remaining -= record.size
        }
        return chosen
    }

    /// Paths by access count, most accessed first.
    var byAccess: [(path: String, record: Record)] {
        records.sorted { $0.value.accessCount > $1.value.accessCount }.map { ($0.key, $0.value) }
    }

    func serialized() -> Data {
        var text = Self.firstLine + "\n"
        for (path, record) in records {
            text += "\(record.accessCount) \(record.size) \(path)\n"
        }
        return Data(text.utf8)
    }

    /// Reads a saved index; `nil` when it is not one.
    static func parse(_ data: Data) -> CacheIndex? {
        let lines = data.split(separator: UInt8(ascii: "\n"))
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == firstLine else { return nil }
        var index = CacheIndex()
        for line in lines.dropFirst() {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2)
            guard fields.count == 3,
                  let count = Int(String(decoding: fields[0], as: UTF8.self)),
                  let size = Int(String(decoding: fields[1], as: UTF8.self))
            else { return nil }
            index.set(String(decoding: fields[2], as: UTF8.self), Record(size: size, accessCount: count))
        }
        return index
    }
}
