/// How a request uses the response cache (seeds 000 and 001).
///
/// Whatever the option, a successful response is stored unless the request says
/// ``Request/shouldSaveInCache`` `false` (see ``ResponseCache`` for what is never stored).
public enum CacheOption: Sendable, Hashable {
    /// The cached response if there is one, and no request; else the network (seed
    /// `APICacheOptionCacheOnly`).
    case cacheOnly
    /// Only the network: the cache is not read (seed `APICacheOptionNetworkOnly`). With offline
    /// mode on, a cached response still answers when the network is unreachable.
    case networkOnly
    /// The cached response first, if any, then the network response (seed `APICacheOptionBoth`).
    /// The network request carries `If-None-Match`/`If-Modified-Since` when the entry has an
    /// `ETag`/`Last-Modified`, and a `304` delivers the stored body as the network response.
    /// Use ``APIClient/responses(_:)`` or the callback API to receive both.
    case both
}
