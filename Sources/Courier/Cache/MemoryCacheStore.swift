/// Entries in memory under a byte cap (seed `inMemoryCacheMaxSize`). When full it keeps the most
/// accessed entries: a new entry goes in only by evicting entries accessed less often than it.
struct MemoryCacheStore: Sendable {
    private(set) var entries: [String: CachedResponse] = [:]
    private(set) var usedBytes = 0
    var capacity: Int
    /// How many entries each folder (`<scope>/<path digest>`) holds, for lookups that need to know
    /// only whether a path has any.
    private var folderCounts: [Substring: Int] = [:]

    init(capacity: Int) { self.capacity = capacity }

    subscript(relativePath: String) -> CachedResponse? { entries[relativePath] }

    /// Inserts or replaces; `accessCount` ranks entries (from the index). Returns whether it was kept.
    @discardableResult
    mutating func insert(_ response: CachedResponse, at relativePath: String, accessCount: (String) -> Int) -> Bool {
        remove(relativePath)
        let cost = response.cost
        guard cost <= capacity else { return false }
        if usedBytes + cost > capacity {
            let rank = accessCount(relativePath)
            var freed = 0
            var victims: [String] = []
            for path in entries.keys.sorted(by: { accessCount($0) < accessCount($1) }) {
                guard usedBytes - freed + cost > capacity else { break }
                guard accessCount(path) <= rank else { return false }
                victims.append(path)
                freed += entries[path]!.cost
            }
            guard usedBytes - freed + cost <= capacity else { return false }
            for path in victims { remove(path) }
        }
        entries[relativePath] = response
        usedBytes += cost
        folderCounts[Self.folder(of: relativePath), default: 0] += 1
        return true
    }

    mutating func remove(_ relativePath: String) {
        guard let old = entries.removeValue(forKey: relativePath) else { return }
        usedBytes -= old.cost
        let folder = Self.folder(of: relativePath)
        if let count = folderCounts[folder], count > 1 { folderCounts[folder] = count - 1 } else { folderCounts[folder] = nil }
    }

    /// Whether any entry is in `folder`.
    func hasEntries(in folder: String) -> Bool { folderCounts[Substring(folder)] != nil }

    /// The folder of an entry's path: the text before its last `/`.
    private static func folder(of relativePath: String) -> Substring {
        guard let slash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return relativePath[..<slash]
    }

    mutating func removeAll(under prefix: String) {
        for path in entries.keys where path.hasPrefix(prefix) { remove(path) }
    }

    /// Evicts least-accessed entries until the used bytes fit the capacity.
    mutating func shrink(accessCount: (String) -> Int) {
        guard usedBytes > capacity else { return }
        for path in entries.keys.sorted(by: { accessCount($0) < accessCount($1) }) {
            guard usedBytes > capacity else { break }
            remove(path)
        }
    }
}
