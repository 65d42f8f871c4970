import Foundation

extension ResponseCache {
    /// Start-up, in the background: sweep dead writers' temporary files, read the index (or list
    /// the folders when there is none), then fill the memory store, most-accessed entries first.
    func load() {
        disk.sweepTemporaryFiles()
        let indexURL = directory.appendingPathComponent(CacheIndex.fileName)
        var loaded = FileManager.default.contents(atPath: indexURL.path).flatMap(CacheIndex.parse)
        if loaded == nil {
            var rebuilt = CacheIndex()
            for (path, size) in disk.scan() { rebuilt.stored(path, size: size) }
            loaded = rebuilt
        }
        guard let loaded else { return }
        let candidates: [(path: String, record: CacheIndex.Record)] = state.withLock { state in
            // Entries stored or read since start are newer than the file: keep them, add the rest.
            for (path, record) in loaded.records {
                if let current = state.index[path] {
                    state.index.set(path, .init(size: current.size, accessCount: current.accessCount + record.accessCount))
                } else {
                    state.index.set(path, record)
                }
            }
            return state.index.byAccess
        }
        for (path, record) in candidates {
            guard !Task.isCancelled else { break }
            let room = state.withLock { $0.memory.capacity - $0.memory.usedBytes }
            guard room > 256 else { break }
            // The file holds the body plus a header of a few hundred bytes.
            guard record.size - 1_024 < room, let key = Self.key(relativePath: path),
                  case .success(let entry)? = disk.read(key)
            else { continue }
            state.withLock { state in
                guard state.memory[path] == nil, state.memory.usedBytes + entry.cost <= state.memory.capacity else { return }
                let index = state.index
                state.memory.insert(entry, at: path) { index[$0]?.accessCount ?? 0 }
            }
        }
    }

    /// The key a relative path names.
    static func key(relativePath: String) -> CacheKey? {
        let parts = relativePath.split(separator: "/")
        guard parts.count == 3, parts[2].hasSuffix(".apicache") else { return nil }
        return CacheKey(digest: String(parts[2].dropLast(".apicache".count)), scope: String(parts[0]), pathDigest: String(parts[1]))
    }

    /// Writes the index (access counts and sizes) now, atomically.
    public func flush() {
        guard !usesStore else { return }
        let data: Data? = state.withLock { state in
            guard state.indexDirty else { return nil }
            state.indexDirty = false
            return state.index.serialized()
        }
        guard let data else { return }
        let final = directory.appendingPathComponent(CacheIndex.fileName)
        let temporary = directory.appendingPathComponent("\(CacheIndex.fileName).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        do {
            try AtomicFile.write(data, to: final, temporary: temporary)
        } catch {
            logger.debug("Courier could not write the cache index: \(error)")
        }
    }

    /// Writes the index about a second after the first change since the last write. (A caller
    /// that already set `saveScheduled` under its own lock passes `alreadyClaimed`.)
    func scheduleIndexSave(alreadyClaimed: Bool = false) {
        guard !usesStore else { return }
        if !alreadyClaimed {
            let schedule = state.withLock { state in
                guard !state.saveScheduled else { return false }
                state.saveScheduled = true
                return true
            }
            guard schedule else { return }
        }
        Task.detached(priority: .background) { [self] in
            try? await Task.sleep(for: .seconds(1))
            state.withLock { $0.saveScheduled = false }
            flush()
        }
    }
}
