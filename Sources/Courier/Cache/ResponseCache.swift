import Foundation
import Logging

/// Courier's response cache (seeds 000 and 001: `APICacheManager`): one `.apicache` file per entry
/// on disk, and a memory store with a byte cap that keeps the most-accessed entries.
///
/// ```swift
/// let cache = ResponseCache(directory: cachesURL, memoryCapacity: 2 << 20)
/// var configuration = ClientConfiguration(baseURL: apiURL)
/// configuration.cache = cache
/// configuration.cacheOption = .both
/// ```
///
/// - Entries are written atomically (a temporary file renamed into place) with a checksum; a
///   corrupt, truncated or foreign file is a miss, and is removed.
/// - At its first use the memory store is filled from disk in the background, most-accessed entries first,
///   up to ``memoryCapacity``; access counts are kept in a small index file and survive restarts
///   (``flush()`` writes it at once; otherwise it is written about a second after a change).
/// - ``diskCapacity`` bounds the files; the least-accessed go first.
/// - Never stored: non-2xx responses, bodies shorter than their `Content-Length`, responses with
///   `Cache-Control: no-store`, requests with ``RequestSettings/shouldSaveInCache`` `false`.
/// - A directory that cannot be written (read-only, full) leaves the cache working in memory.
///
/// One directory belongs to one cache at a time within a process; several processes may share it
/// (writes are atomic), but their memory stores and access counts are their own.
public final class ResponseCache: Sendable {
    struct State {
        var memory: MemoryCacheStore
        var index = CacheIndex()
        var diskCapacity: Int
        var indexDirty = false
        var saveScheduled = false
        var loading: Task<Void, Never>?
        var started = false
    }

    /// The folder that holds the entries.
    public let directory: URL
    let disk: DiskCacheStore
    let state: Locked<State>
    /// The keys made lately (a key's SHA-256 costs more than the rest of a memory hit).
    let keyMemo = Locked(KeyMemo())
    let logger: Logger

    /// The memory store's default byte cap (seed `inMemoryCacheDefaultMaxSize`): 1 MB.
    public static let defaultMemoryCapacity = 1 << 20
    /// The disk's default byte cap: 256 MB.
    public static let defaultDiskCapacity = 256 << 20

    /// A cache in the standard directory, shared by clients that do not name their own.
    public static let shared = ResponseCache()

    /// Creates a cache.
    /// - Parameters:
    ///   - directory: where entries go; defaults to ``standardDirectory``.
    ///   - memoryCapacity: the memory store's byte cap (seed `inMemoryCacheMaxSize`).
    ///   - diskCapacity: the files' byte cap.
    ///   - logger: where the cache reports files it could not read or write.
    public init(
        directory: URL? = nil, memoryCapacity: Int = ResponseCache.defaultMemoryCapacity,
        diskCapacity: Int = ResponseCache.defaultDiskCapacity, logger: Logger = Logger(label: "Courier.cache")
    ) {
        let directory = directory ?? Self.standardDirectory
        self.directory = directory
        disk = DiskCacheStore(directory: directory)
        self.logger = logger
        state = Locked(State(memory: MemoryCacheStore(capacity: memoryCapacity), diskCapacity: diskCapacity))
    }

    /// Creates the directory and starts the background load, once, at the first use (so a client
    /// that never caches never touches the disk).
    func start() {
        let starting = state.withLock { state in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        guard starting else { return }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            logger.warning("Courier cannot create the cache directory \(directory.path); caching in memory only: \(error)")
        }
        let loading = Task.detached(priority: .utility) { [self] in load() }
        state.withLock { $0.loading = loading }
    }

    /// The default directory: the Caches directory on Apple platforms, `$XDG_CACHE_HOME/courier`
    /// (else `~/.cache/courier`) elsewhere.
    public static var standardDirectory: URL {
        #if canImport(Darwin)
        return FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0].appendingPathComponent("Courier")
        #else
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("courier")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/courier")
        #endif
    }

    /// The memory store's byte cap; lowering it evicts the least-accessed entries at once.
    public var memoryCapacity: Int {
        get { state.withLock { $0.memory.capacity } }
        set {
            state.withLock { state in
                state.memory.capacity = max(0, newValue)
                let index = state.index
                state.memory.shrink { index[$0]?.accessCount ?? 0 }
            }
        }
    }

    /// The files' byte cap; lowering it evicts at the next store.
    public var diskCapacity: Int {
        get { state.withLock { $0.diskCapacity } }
        set { state.withLock { $0.diskCapacity = max(0, newValue) } }
    }

    /// The bytes the entries take on disk, as far as the index knows.
    public var diskUsage: Int { state.withLock { $0.index.totalSize } }

    /// The bytes the memory store holds.
    public var memoryUsage: Int { state.withLock { $0.memory.usedBytes } }

    /// How often an entry was read, as recorded in the index.
    package func accessCount(for key: CacheKey) -> Int {
        state.withLock { $0.index[key.relativePath]?.accessCount ?? 0 }
    }

    /// Whether the entry is in the memory store now.
    package func isInMemory(_ key: CacheKey) -> Bool {
        state.withLock { $0.memory[key.relativePath] != nil }
    }

    /// Returns when the start-up work (temporary-file sweep, index, memory fill) is done.
    package func loaded() async {
        start()
        await state.withLock { $0.loading }?.value
    }
}
