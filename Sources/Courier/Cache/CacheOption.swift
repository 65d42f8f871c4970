/// How a request uses the response cache (seeds 000 and 001). A value with static members, so
/// later releases can add options without breaking an app's `switch` (which needs a `default`).
///
/// Whatever the option, a successful response is stored unless the request says
/// ``RequestSettings/shouldSaveInCache`` `false` (see ``ResponseCache`` for what is never stored).
public struct CacheOption: Sendable, Hashable, CustomStringConvertible {
    enum Rule: Hashable {
        case cacheOnly, networkOnly, both
    }

    let rule: Rule

    /// The cached response if there is one, and no request; else the network (seed
    /// `APICacheOptionCacheOnly`).
    public static let cacheOnly = CacheOption(rule: .cacheOnly)
    /// Only the network: the cache is not read (seed `APICacheOptionNetworkOnly`). With offline
    /// mode on, a cached response still answers when the network is unreachable.
    public static let networkOnly = CacheOption(rule: .networkOnly)
    /// The cached response first, if any, then the network response (seed `APICacheOptionBoth`).
    /// The network request carries `If-None-Match`/`If-Modified-Since` when the entry has an
    /// `ETag`/`Last-Modified`, and a `304` delivers the stored body as the network response.
    /// Use ``APIClient/responses(_:)`` or the callback API to receive both.
    public static let both = CacheOption(rule: .both)

    /// The option's name, as written in code: `cacheOnly`, `networkOnly` or `both`.
    public var description: String {
        switch rule {
        case .cacheOnly: "cacheOnly"
        case .networkOnly: "networkOnly"
        case .both: "both"
        }
    }
}
