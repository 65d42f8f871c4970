/// The cache keys made lately, by the canonical bytes they were made from: a key's SHA-256 costs
/// more than the rest of a memory hit, and an app asks for the same few requests again and again.
/// The key is a pure function of those bytes, so a remembered key never goes stale; the memo
/// forgets everything when it reaches ``bound`` entries.
struct KeyMemo: Sendable {
    /// Canonical bytes, hashed as one run (an array of bytes hashes byte by byte).
    struct Input: Hashable, Sendable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    static let bound = 1_024
    private var keys: [Input: CacheKey] = [:]

    subscript(input: Input) -> CacheKey? { keys[input] }

    mutating func remember(_ key: CacheKey, for input: Input) {
        if keys.count >= Self.bound { keys.removeAll(keepingCapacity: true) }
        keys[input] = key
    }
}
