/// Where a response came from.
public enum ResponseSource: Sendable, Hashable {
    /// From the server.
    case network
    /// From Courier's response cache.
    case cache
    /// From the cache because the network was unreachable (offline mode).
    case offlineCache
}

extension ResponseSource {
    /// The source's name in spans and logs: `network`, `cache` or `offlineCache` (a switch, not
    /// `String(describing:)`, which reflects on the value at every call).
    var telemetryName: String {
        switch self {
        case .network: "network"
        case .cache: "cache"
        case .offlineCache: "offlineCache"
        }
    }
}
