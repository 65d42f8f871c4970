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
///
/// A cache made with ``init(store:memoryCapacity:logger:)`` keeps its entries in a ``CacheStore``
/// instead of the disk (a database several processes share, for example), with a memory layer in
/// front when the store reports the changes others make.
public final class ResponseCache: Sendable {
    struct State {
        var memory: MemoryCacheStore
        var index = CacheIndex()
        var diskCapacity: Int
        var indexDirty = false
        var saveScheduled = false
        var loading: Task<Void, Never>?
        var started = false
        /// Counts the changes a store reported: an entry read from the store goes into memory only
        /// if none came while it was read (else it may be one that was just replaced or removed).
        var changeGeneration: UInt64 = 0
        /// The store's feed of changes, until the cache starts following it.
        var changes: AsyncStream<String>?
        var following: Task<Void, Never>?
    }

    /// The folder that holds the entries (for a cache on a ``CacheStore``: none is used, and this
    /// is ``standardDirectory``).
    public let directory: URL
    let disk: DiskCacheStore
    /// Where the entries are kept instead of the disk, if anywhere.
    let store: (any CacheStore)?
    /// Whether ``store`` is set: the disk's hot path asks this, not the existential.
    let usesStore: Bool
    let state: Locked<State>
    /// The keys made lately (a key's SHA-256 costs more than the rest of a memory hit).
    let keyMemo = Locked(KeyMemo())
    let logger: Logger

    /// The memory store's default byte cap (seed `inMemoryCacheDefaultMaxSize`): 1 MB.
    @usableFromInline package static let defaultMemoryCapacity = 1 << 20
    /// The disk's default byte cap: 256 MB.
    @usableFromInline package static let defaultDiskCapacity = 256 << 20

    /// A cache in the standard directory, shared by clients that do not name their own.
    public static let shared = ResponseCache()

    /// Creates a cache.
    /// - Parameters:
    ///   - directory: where entries go; defaults to ``standardDirectory``.
    ///   - memoryCapacity: the memory store's byte cap (seed `inMemoryCacheMaxSize`; 1 MB by default,
    ///     the seed's `inMemoryCacheDefaultMaxSize`).
    ///   - diskCapacity: the files' byte cap (256 MB by default).
    ///   - logger: where the cache reports files it could not read or write.
    public init(
        directory: URL? = nil, memoryCapacity: Int = ResponseCache.defaultMemoryCapacity,
        diskCapacity: Int = ResponseCache.defaultDiskCapacity, logger: Logger = Logger(label: "Courier.cache")
    ) {
        let directory = directory ?? Self.standardDirectory
        self.directory = directory
        disk = DiskCacheStore(directory: directory)
        self.logger = logger
        store = nil
        usesStore = false
        state = Locked(State(memory: MemoryCacheStore(capacity: memoryCapacity), diskCapacity: diskCapacity))
    }

    /// Creates a cache whose entries live in `store`.
    /// - Parameters:
    ///   - store: where the entries are kept; when ``CacheStore/isShared``, the clients that use
    ///     the cache follow the rules of a shared HTTP cache and must set
    ///     ``ClientConfiguration/cacheFreshness`` to ``CacheFreshness/http``.
    ///   - memoryCapacity: the byte cap of a memory layer in front of the store, kept coherent
    ///     through the store's ``CacheStore/changes()``; a store without that feed gets none.
    ///   - logger: where the cache reports a store that failed.
    public init(store: some CacheStore, memoryCapacity: Int = ResponseCache.defaultMemoryCapacity, logger: Logger = Logger(label: "Courier.cache")) {
        directory = Self.standardDirectory
        disk = DiskCacheStore(directory: directory)
        self.logger = logger
        self.store = store
        usesStore = true
        let changes = store.changes()
        var state = State(memory: MemoryCacheStore(capacity: changes == nil ? 0 : max(0, memoryCapacity)), diskCapacity: 0)
        state.changes = changes
        self.state = Locked(state)
    }

    deinit { state.withLock { $0.following }?.cancel() }

    /// Whether the entries are in a shared ``CacheStore``, one for every user.
    package var isShared: Bool { usesStore && store?.isShared == true }

    /// Creates the directory and starts the background load, once, at the first use (so a client
    /// that never caches never touches the disk).
    func start() {
        let starting = state.withLock { state in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        guard starting else { return }
        if usesStore {
            follow()
            return
        }
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
