/// Entries in memory under a byte cap (seed `inMemoryCacheMaxSize`). When full it keeps the most
/// accessed entries: a new entry goes in only by evicting entries accessed less often than it.
struct MemoryCacheStore: Sendable {
    private(set) var entries: [String: CachedResponse] = [:]
    private(set) var usedBytes = 0
    var capacity: Int
    /// How many entries each folder (`<scope>/<path digest>`) holds, for lookups that need to know
    /// only whether a path has any; keyed by scope and digest as numbers, so a lookup builds no text.
    private var folderCounts: [Folder: Int] = [:]
    /// Entries whose path has no folder of that form (keys made by hand): while there are any,
    /// every folder may hold entries.
    private var unfiledEntries = 0

    /// A folder of entries: the user's scope and the digest of the request's path.
    struct Folder: Hashable {
        let scope: Substring
        let pathHash: UInt64
    }

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
        if let folder = Self.folder(of: relativePath) { folderCounts[folder, default: 0] += 1 } else { unfiledEntries += 1 }
        return true
    }

    mutating func remove(_ relativePath: String) {
        guard let old = entries.removeValue(forKey: relativePath) else { return }
        usedBytes -= old.cost
        guard let folder = Self.folder(of: relativePath) else {
            unfiledEntries -= 1
            return
        }
        if let count = folderCounts[folder], count > 1 { folderCounts[folder] = count - 1 } else { folderCounts[folder] = nil }
    }

    /// Whether any entry may be in the folder of `scope` and `pathHash`.
    func hasEntries(scope: String, pathHash: UInt64) -> Bool {
        unfiledEntries > 0 || folderCounts[Folder(scope: Substring(scope), pathHash: pathHash)] != nil
    }

    /// The folder of an entry's path `<scope>/<16 hex digits>/<name>`, or `nil` for another form.
    private static func folder(of relativePath: String) -> Folder? {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count == 16, let pathHash = UInt64(parts[1], radix: 16) else { return nil }
        return Folder(scope: parts[0], pathHash: pathHash)
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
