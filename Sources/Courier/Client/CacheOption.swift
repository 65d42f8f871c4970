/// How a request uses the response cache (seeds 000 and 001).
public enum CacheOption: Sendable, Hashable {
    /// The cached response if there is one, and no request; else the network.
    case cacheOnly
    /// Only the network; the cache is not read.
    case networkOnly
    /// The cached response first, if any, then the network response.
    case both
}
