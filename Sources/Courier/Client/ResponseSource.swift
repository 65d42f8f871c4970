/// Where a response came from.
public enum ResponseSource: Sendable, Hashable {
    /// From the server.
    case network
    /// From Courier's response cache.
    case cache
    /// From the cache because the network was unreachable (offline mode).
    case offlineCache
}
