/// Where a response came from: compare with `==` (a value with static members, so a later release
/// can add sources without breaking a `switch` that has a `default:`).
public struct ResponseSource: Sendable, Hashable, CustomStringConvertible {
    /// The source's stable name: `network`, `cache` or `offlineCache`; also its name in spans.
    public let name: String

    private init(_ name: String) { self.name = name }

    /// From the server.
    public static let network = ResponseSource("network")
    /// From Courier's response cache.
    public static let cache = ResponseSource("cache")
    /// From the cache because the network was unreachable (offline mode).
    public static let offlineCache = ResponseSource("offlineCache")

    /// The ``name``.
    public var description: String { name }
}
