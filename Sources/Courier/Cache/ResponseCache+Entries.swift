import Foundation

extension ResponseCache {
    /// The stored response for `key`: from memory, else from disk (then kept in memory if it
    /// ranks among the most accessed). Counts as an access. For a cache on a ``CacheStore``, from
    /// memory only (the requests a client sends read the store).
    public func response(for key: CacheKey) -> CachedResponse? {
        start()
        let path = key.relativePath
        let (hit, schedule): (CachedResponse?, Bool) = state.withLock { state in
            guard let entry = state.memory[path] else { return (nil, false) }
            state.index.accessed(path)
            state.indexDirty = true
            let schedule = !state.saveScheduled
            state.saveScheduled = true
            return (entry, schedule)
        }
        if let hit {
            if schedule { scheduleIndexSave(alreadyClaimed: true) }
            return hit
        }
        guard !usesStore else { return nil }
        switch disk.read(key) {
        case nil:
            return nil
        case .failure(let failure):
            logger.warning("Courier removed the cache entry \(path): \(failure)")
            state.withLock { state in
                state.index.set(path, nil)
                state.indexDirty = true
            }
            scheduleIndexSave()
            return nil
        case .success(let entry):
            state.withLock { state in
                if state.index[path] == nil { state.index.stored(path, size: entry.body.count) }
                state.index.accessed(path)
                state.indexDirty = true
                let index = state.index
                state.memory.insert(entry, at: path) { index[$0]?.accessCount ?? 0 }
            }
            scheduleIndexSave()
            return entry
        }
    }

    /// Whether the cache may hold entries in the folder of `draft` (`<scope>/<path digest>`):
    /// `false` only when neither memory nor disk has any, so that a lookup there can miss without
    /// a key's digest.
    func mayHoldEntries(for draft: CacheKey.Draft) -> Bool {
        start()
        guard !usesStore else { return true }
        if state.withLock({ $0.memory.hasEntries(scope: draft.scope, pathHash: draft.pathHash) }) { return true }
        return disk.hasFolder(draft.folder)
    }

    /// Stores `response` for `key`, replacing what was there; keeps it in memory if it fits. For a
    /// cache on a ``CacheStore``, the store is written in the background.
    public func store(_ response: CachedResponse, for key: CacheKey) {
        if usesStore {
            Task { _ = await keep(response, for: key) }
            return
        }
        start()
        var response = response
        response.vary = Vary(response.headers)
        let path = key.relativePath
        var size = response.body.count
        do {
            size = try disk.write(response, for: key)
        } catch {
            logger.debug("Courier could not write the cache entry \(path): \(error)")
        }
        let evicted: [String] = state.withLock { state in
            state.index.stored(path, size: size)
            state.indexDirty = true
            let index = state.index
            state.memory.insert(response, at: path) { index[$0]?.accessCount ?? 0 }
            let victims = state.index.evictions(toFit: state.diskCapacity, keeping: path)
            for victim in victims {
                state.index.set(victim, nil)
                state.memory.remove(victim)
            }
            return victims
        }
        for victim in evicted { disk.removeItem(victim) }
        scheduleIndexSave()
    }

    /// Removes the entry for `key`.
    public func removeResponse(for key: CacheKey) {
        remove(under: key.relativePath)
    }

    /// Removes every entry (for a cache on a ``CacheStore``, from the store in the background).
    public func removeAll() {
        start()
        if let store {
            state.withLock { $0.memory.removeAll(under: "") }
            Task { [logger] in
                do { try await store.removeEntries(scope: nil, pathDigest: nil) } catch {
                    logger.warning("Courier's cache store failed to remove every entry: \(error)")
                }
            }
            return
        }
        state.withLock { state in
            state.index.removeAll(under: "")
            state.memory.removeAll(under: "")
            state.indexDirty = true
        }
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            disk.removeItem(folder)
        }
        scheduleIndexSave()
    }

    /// Removes every entry of an auth scope (what ``APIClient/logout()`` does for the user's).
    public func removeAll(scope: String) {
        remove(under: scope + "/")
    }

    /// Removes the entries of one URL path (any query) in a scope.
    func removeAll(scope: String, pathDigest: String) {
        remove(under: "\(scope)/\(pathDigest)/")
    }

    private func remove(under prefix: String) {
        start()
        if let store {
            state.withLock { $0.memory.removeAll(under: prefix) }
            let parts = prefix.split(separator: "/", omittingEmptySubsequences: false)
            // `<scope>/`, `<scope>/<path>/` or a key's name.
            let scope = parts.first.map(String.init)
            let pathDigest = parts.count > 2 ? String(parts[1]) : nil
            Task { [logger] in
                do { try await store.removeEntries(scope: scope, pathDigest: pathDigest) } catch {
                    logger.warning("Courier's cache store failed to remove \(prefix): \(error)")
                }
            }
            return
        }
        state.withLock { state in
            state.index.removeAll(under: prefix)
            state.memory.removeAll(under: prefix)
            state.indexDirty = true
        }
        disk.removeItem(prefix)
        scheduleIndexSave()
    }
}
