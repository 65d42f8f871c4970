import Foundation

/// Where a ``ResponseCache`` keeps its entries when they are not on this machine's disk: a
/// database several processes share, for example (`PostgresCacheStore` in the `CourierPostgres`
/// product).
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: apiURL)
/// configuration.cache = ResponseCache(store: store)
/// configuration.cacheFreshness = .http
/// ```
///
/// The cache hands the store each entry as bytes in Courier's entry format, which carries its
/// own checksum: a row written in part or for another key is refused when read, never served.
/// The store only keeps, returns and removes them, grouped by ``CacheKey/scope`` and
/// ``CacheKey/pathDigest`` (an unsafe request removes every entry of a path).
///
/// A store that throws, or answers later than it should, is a cache miss for the request: the
/// cache logs it, counts it as the `store_failed` result of `courier_cache_lookups_total` and goes
/// on without it. A store never fails a request.
public protocol CacheStore: Sendable {
    /// Whether the entries answer every user of the store: then the client applies the rules of
    /// a shared HTTP cache (RFC 9111) and keeps no entry per user.
    var isShared: Bool { get }

    /// The bytes stored under `key`, or `nil`.
    func entry(named key: CacheKey) async throws -> Data?

    /// Stores `entry` under `key`, replacing what was there, and says whether it did: a store may
    /// decline an entry (too large, for example), and the response is then not cached at all.
    func store(_ entry: Data, named key: CacheKey) async throws -> Bool

    /// Removes the entries of `scope` whose key has `pathDigest`, or every entry of `scope` when
    /// `pathDigest` is `nil`, or every entry when both are `nil`.
    func removeEntries(scope: String?, pathDigest: String?) async throws

    /// The changes other users of the store made, for a memory layer in front of it: each
    /// element is a prefix of ``CacheKey/name``s whose entries were replaced or removed (the
    /// empty string for all of them). The stream starts with an empty string each time the
    /// store (re)connects, as changes may have been missed meanwhile. `nil` when the store has
    /// no such feed: the cache then keeps nothing of its in memory.
    func changes() -> AsyncStream<String>?

    /// Claims the revalidation of the entry under `key` among every user of the store, so that a
    /// stale entry is revalidated once for all of them. With `waiting`, waits while another holds
    /// the claim (the caller then reads the entry again: the other may have refreshed it), up to a
    /// limit of the store's, after which it throws; without, returns `nil` at once when another
    /// holds it. The claim lasts until ``CacheRevalidationClaim/release()``.
    func claimRevalidation(of key: CacheKey, waiting: Bool) async throws -> CacheRevalidationClaim?
}

extension CacheStore {
    /// No feed of changes.
    public func changes() -> AsyncStream<String>? { nil }

    /// Always granted: a store that does not coordinate its users lets each revalidate.
    public func claimRevalidation(of key: CacheKey, waiting: Bool) async throws -> CacheRevalidationClaim? {
        CacheRevalidationClaim {}
    }
}

/// The claim a ``CacheStore`` grants to revalidate one entry (``CacheStore/claimRevalidation(of:waiting:)``).
public final class CacheRevalidationClaim: Sendable {
    private let end: Locked<(@Sendable () -> Void)?>

    /// A claim that `release` ends.
    public init(release: @escaping @Sendable () -> Void) { end = Locked(release) }

    /// Ends the claim, once (later calls do nothing); a claim no one holds any more ends too.
    public func release() {
        let release = end.withLock { end in
            defer { end = nil }
            return end
        }
        release?()
    }

    deinit { release() }
}
