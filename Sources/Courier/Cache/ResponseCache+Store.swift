import Foundation

/// The cache as the request path uses it: through its ``CacheStore`` when it has one, else the
/// disk, with the memory store in front of either.
extension ResponseCache {
    /// The stored response for `key` in a cache on a ``CacheStore`` (the disk's is
    /// ``response(for:)``): from memory, else from the store; with `bypassingMemory`, from the
    /// store (what another user of a shared store just wrote). `failed` when the store threw: the
    /// request goes on as if nothing were stored, and counts it.
    func lookup(_ key: CacheKey, bypassingMemory: Bool = false) async -> (entry: CachedResponse?, failed: Bool) {
        guard let store else { return (response(for: key), false) }
        start()
        let path = key.relativePath
        let (hit, generation): (CachedResponse?, UInt64) = state.withLock { state in
            guard !bypassingMemory, let entry = state.memory[path] else { return (nil, state.changeGeneration) }
            state.index.accessed(path)
            return (entry, state.changeGeneration)
        }
        if let hit { return (hit, false) }
        let data: Data?
        do {
            data = try await store.entry(named: key)
        } catch {
            logger.warning("Courier's cache store failed to read \(path); going on without the cache: \(error)")
            return (nil, true)
        }
        guard let data else { return (nil, false) }
        let entry: CachedResponse
        do throws(CacheEntryCodec.Failure) {
            entry = try CacheEntryCodec.decode([UInt8](data), digest: key.digest)
        } catch {
            logger.warning("Courier's cache store returned an entry it cannot use for \(path) (\(error)); it is ignored")
            return (nil, false)
        }
        state.withLock { state in
            guard state.memory.capacity > 0, state.changeGeneration == generation else { return }
            state.index.accessed(path)
            let index = state.index
            state.memory.insert(entry, at: path) { index[$0]?.accessCount ?? 0 }
        }
        return (entry, false)
    }

    /// Stores `response` for `key`, in the store or on disk, and in memory; `false` when the
    /// store threw.
    func keep(_ response: CachedResponse, for key: CacheKey) async -> Bool {
        guard let store else {
            self.store(response, for: key)
            return true
        }
        start()
        var response = response
        response.vary = Vary(response.headers)
        let path = key.relativePath
        do {
            guard try await store.store(CacheEntryCodec.encode(response, digest: key.digest), named: key) else {
                state.withLock { $0.memory.remove(path) }
                return true
            }
        } catch {
            logger.warning("Courier's cache store failed to store \(path); the response is not cached: \(error)")
            state.withLock { $0.memory.remove(path) }
            return false
        }
        state.withLock { state in
            guard state.memory.capacity > 0 else { return }
            let index = state.index
            state.memory.insert(response, at: path) { index[$0]?.accessCount ?? 0 }
        }
        return true
    }

    /// Removes the entries of one URL path (any query) in a scope, from the store or the disk
    /// and from memory; `false` when the store threw.
    func removeEntries(scope: String, pathDigest: String) async -> Bool {
        guard let store else {
            removeAll(scope: scope, pathDigest: pathDigest)
            return true
        }
        start()
        state.withLock { $0.memory.removeAll(under: "\(scope)/\(pathDigest)/") }
        do {
            try await store.removeEntries(scope: scope, pathDigest: pathDigest)
        } catch {
            logger.warning("Courier's cache store failed to remove the entries of \(scope)/\(pathDigest): \(error)")
            return false
        }
        return true
    }

    /// How many changes the store reported so far (the first, when it starts listening, included).
    var changesReceived: UInt64 { state.withLock { $0.changeGeneration } }

    /// Follows the changes others make to the store, dropping what they replaced or removed
    /// from memory; the cache follows for as long as it exists. A memory layer starts empty and
    /// fills only once the cache follows, so it never holds an entry a missed change concerned.
    func follow() {
        guard let changes = state.withLock({ state in defer { state.changes = nil }; return state.changes }) else { return }
        let task = Task.detached(priority: .utility) { [weak self] in
            for await prefix in changes {
                guard let self else { return }
                self.state.withLock { state in
                    state.changeGeneration &+= 1
                    state.memory.removeAll(under: prefix)
                }
            }
        }
        state.withLock { $0.following = task }
    }
}
