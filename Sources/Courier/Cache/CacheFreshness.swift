import Foundation

/// When a cached response is recent enough to answer a ``CacheOption/both`` request without asking
/// the network at all. A value with static members, so later releases can add rules.
public struct CacheFreshness: Sendable, Hashable {
    enum Rule: Hashable {
        case never, serverMaxAge
        case age(TimeInterval)
    }

    let rule: Rule

    /// Never: the network is always asked (revalidating when it can).
    public static let never = CacheFreshness(rule: .never)
    /// While the entry is younger than the `max-age` of its `Cache-Control` header.
    public static let serverMaxAge = CacheFreshness(rule: .serverMaxAge)

    /// While the entry is younger than `seconds`: 0 or more (`.infinity`: fresh forever; a NaN or
    /// negative age fails every request of the client with ``CourierError/Kind/invalidRequest``).
    public static func age(_ seconds: TimeInterval) -> CacheFreshness { CacheFreshness(rule: .age(seconds)) }

    /// The age limit, for ``age(_:)``.
    public var maximumAge: TimeInterval? {
        if case .age(let seconds) = rule { return seconds }
        return nil
    }

    /// Whether the rule reads an entry's ``CachedResponse/storedAt`` (so a revalidation that
    /// changed nothing else still has to store the entry again, to restart its age).
    var readsStorageTime: Bool {
        if case .never = rule { return false }
        return true
    }

    /// Whether `response` is fresh at `now`.
    func isFresh(_ response: CachedResponse, now: Date = Date()) -> Bool {
        let age = now.timeIntervalSince(response.storedAt)
        switch rule {
        case .never: return false
        case .serverMaxAge:
            guard let maxAge = response.maxAge else { return false }
            return age < maxAge
        case .age(let limit): return age < limit
        }
    }
}
