import Foundation

/// When a cached response is recent enough to answer a ``CacheOption/both`` request without asking
/// the network at all.
public enum CacheFreshness: Sendable, Hashable {
    /// Never: the network is always asked (revalidating when it can).
    case never
    /// While the entry is younger than the `max-age` of its `Cache-Control` header.
    case serverMaxAge
    /// While the entry is younger than the given number of seconds.
    case age(TimeInterval)

    /// Whether `response` is fresh at `now`.
    func isFresh(_ response: CachedResponse, now: Date = Date()) -> Bool {
        let age = now.timeIntervalSince(response.storedAt)
        switch self {
        case .never: return false
        case .serverMaxAge:
            guard let maxAge = response.maxAge else { return false }
            return age < maxAge
        case .age(let limit): return age < limit
        }
    }
}
