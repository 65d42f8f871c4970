import Foundation

/// When a cached response is recent enough to answer a ``CacheOption/both`` request without asking
/// the network at all. A value with static members, so later releases can add rules.
///
/// - ``never`` (the default): every request asks the network, revalidating what is stored.
/// - ``age(_:)`` and ``serverMaxAge``: simple rules of the app's choosing or the server's `max-age`.
/// - ``http``: the rules of an HTTP cache (RFC 9111), for an API that says how it may be cached.
public struct CacheFreshness: Sendable, Hashable {
    enum Rule: Hashable {
        case never, serverMaxAge, http, sharedHTTP
        case age(TimeInterval)
    }

    let rule: Rule

    /// Never: the network is always asked (revalidating when it can).
    public static let never = CacheFreshness(rule: .never)
    /// While the entry is younger than the `max-age` of its `Cache-Control` header.
    public static let serverMaxAge = CacheFreshness(rule: .serverMaxAge)

    /// The rules of a private HTTP cache (RFC 9111), as a browser applies them:
    ///
    /// - **Freshness** from the response: `max-age`, else `Expires` against `Date`, else 10% of the
    ///   time since `Last-Modified` for a status that may be cached by heuristics (200, 203, 204,
    ///   300, 301, 308, 404, 405, 410, 414, 501). Its age counts the `Age` the server gave and the
    ///   time it was stored.
    /// - **Response directives**: `no-store` is never stored; `no-cache` is revalidated every
    ///   time; `must-revalidate` is revalidated once stale, and never served stale.
    ///   `stale-while-revalidate=N` answers a response stale by at most N seconds at once and
    ///   revalidates it in the background (one revalidation at a time per entry);
    ///   `stale-if-error=N` answers a response stale by at most N seconds when the network fails
    ///   or answers 500, 502, 503 or 504.
    /// - **The request's own `Cache-Control`** (or `Pragma: no-cache` without one): `no-store`
    ///   neither reads nor stores; `no-cache` and `max-age=0` revalidate; `max-age=N`,
    ///   `min-fresh=N`, `max-stale[=N]` and `stale-if-error=N` bound the age as RFC 9111 says;
    ///   `only-if-cached` answers from the cache, whatever the age, and fails with
    ///   ``CourierError/Kind/notCached`` when nothing is stored, without asking the network.
    /// - **What is stored**: responses to GET and HEAD only, with a final status the response
    ///   allows to be cached (a status above, or any status with `max-age`, `Expires`, `public` or
    ///   `private`), within ``ClientConfiguration/acceptableStatusCodes``.
    ///
    /// With ``CacheOption/both``, a stored response that must be revalidated is handed to the
    /// cached-answer callback first, as with every rule. ``CacheOption/cacheOnly`` answers with any
    /// stored response, and offline mode answers with one when the network cannot be reached,
    /// whatever its freshness: both are the app's own choice to show what it has.
    public static let http = CacheFreshness(rule: .http)

    /// The rules of a shared HTTP cache (RFC 9111): those of ``http``, and those a cache that
    /// answers many users must follow. `private` is never stored (`private="X"` stores without
    /// field X); an answer to a request with credentials is stored only when `public`,
    /// `s-maxage` or `must-revalidate` allows it (§3.5); `s-maxage` wins over `max-age`, and it and
    /// `proxy-revalidate` forbid serving stale. Entries are not kept per user.
    package static let sharedHTTP = CacheFreshness(rule: .sharedHTTP)

    /// The rule as it is written in Swift, for messages.
    var spelling: String {
        switch rule {
        case .never: ".never"
        case .serverMaxAge: ".serverMaxAge"
        case .http: ".http"
        case .sharedHTTP: ".sharedHTTP"
        case .age(let seconds): ".age(\(seconds))"
        }
    }

    /// Whether the rule is an HTTP cache's, private or shared.
    var isHTTP: Bool { rule == .http || rule == .sharedHTTP }
    /// Whether the rule is a shared cache's.
    var isShared: Bool { rule == .sharedHTTP }

    /// While the entry is younger than `seconds`: 0 or more (`.infinity`: fresh forever; a NaN or
    /// negative age fails every request of the client with ``CourierError/Kind/invalidRequest``).
    public static func age(_ seconds: TimeInterval) -> CacheFreshness { CacheFreshness(rule: .age(seconds)) }

    /// The age limit, for ``age(_:)``.
    var maximumAge: TimeInterval? {
        if case .age(let seconds) = rule { return seconds }
        return nil
    }

    /// Whether the rule reads an entry's ``CachedResponse/storedAt`` (so a revalidation that
    /// changed nothing else still has to store the entry again, to restart its age).
    var readsStorageTime: Bool {
        if case .never = rule { return false }
        return true
    }

    /// Whether `response` is fresh at `now` (for ``http``, with no request directives).
    func isFresh(_ response: CachedResponse, now: Date = Date()) -> Bool {
        let age = now.timeIntervalSince(response.storedAt)
        switch rule {
        case .never: return false
        case .serverMaxAge:
            guard let maxAge = response.maxAge else { return false }
            return age < maxAge
        case .http, .sharedHTTP: return HTTPFreshness(response, now: now, shared: isShared).isFresh
        case .age(let limit): return age < limit
        }
    }

    /// How a stored response may answer a request.
    enum Use {
        /// At once, from the cache.
        case fresh
        /// At once, from the cache, and revalidated in the background.
        case staleWhileRevalidate
        /// Only after asking the network (conditionally where it can).
        case validate
    }

    /// How `response` may answer a request whose `Cache-Control` is `request`, at `now`.
    func use(of response: CachedResponse, request: CacheControl, now: Date = Date()) -> Use {
        guard isHTTP else { return isFresh(response, now: now) ? .fresh : .validate }
        let freshness = HTTPFreshness(response, now: now, shared: isShared)
        let control = freshness.control
        if request.noCache || control.noCache { return .validate }
        if let limit = request.maxAge, freshness.age > limit { return .validate }
        if let margin = request.minFresh, freshness.lifetime - freshness.age < margin { return .validate }
        if freshness.isFresh { return .fresh }
        if freshness.mustRevalidate { return .validate }
        if let allowance = request.maxStale, freshness.staleness <= allowance { return .fresh }
        if let window = control.staleWhileRevalidate, freshness.staleness <= window { return .staleWhileRevalidate }
        return .validate
    }

    /// Whether `response` may answer, stale, a request whose `Cache-Control` is `request` when the
    /// network failed or answered 500, 502, 503 or 504 (`stale-if-error`, RFC 5861 §4).
    func servesOnError(_ response: CachedResponse, request: CacheControl, now: Date = Date()) -> Bool {
        guard isHTTP else { return false }
        let freshness = HTTPFreshness(response, now: now, shared: isShared)
        let control = freshness.control
        guard !freshness.mustRevalidate, !control.noCache, !request.noCache,
              let window = request.staleIfError ?? control.staleIfError
        else { return false }
        return freshness.staleness <= window
    }
}

/// The freshness of one stored response at one moment, by RFC 9111 §4.2.
struct HTTPFreshness {
    /// The response's `Cache-Control`.
    let control: CacheControl
    /// How long the response is fresh for, from when the origin made it.
    let lifetime: TimeInterval
    /// How old it is now.
    let age: TimeInterval
    /// Whether the cache is shared (RFC 9111's rules for a cache that answers many users).
    let shared: Bool

    init(_ response: CachedResponse, now: Date, shared: Bool = false) {
        self.shared = shared
        let headers = response.headers
        control = CacheControl(headers)
        let date = headers["Date"].flatMap { HTTPDate.parse($0) } ?? response.storedAt
        // §4.2.3, with the response's delay unknown (the store time stands for the response time).
        let apparentAge = max(0, response.storedAt.timeIntervalSince(date))
        let ageValue = headers["Age"].flatMap { CacheControl.deltaSeconds(Self.firstElement(of: $0)) } ?? 0
        age = max(apparentAge, ageValue) + max(0, now.timeIntervalSince(response.storedAt))
        lifetime = Self.lifetime(of: response, control: control, date: date, shared: shared)
    }

    /// Whether the response may not be served stale: `must-revalidate`, and for a shared cache
    /// `proxy-revalidate` and `s-maxage` too (§5.2.2.8, §5.2.2.10).
    var mustRevalidate: Bool {
        control.mustRevalidate || (shared && (control.proxyRevalidate || control.sMaxAge != nil))
    }

    var isFresh: Bool { lifetime > age }
    /// How long ago the response became stale (negative while fresh).
    var staleness: TimeInterval { age - lifetime }

    /// §4.2.1: `s-maxage` in a shared cache, else `max-age`, else `Expires` less `Date`, else a
    /// heuristic for a status that allows it.
    private static func lifetime(of response: CachedResponse, control: CacheControl, date: Date, shared: Bool) -> TimeInterval {
        if shared, let sMaxAge = control.sMaxAge { return sMaxAge }
        if let maxAge = control.maxAge { return maxAge }
        let expires = response.headers.values(for: "Expires")
        if !expires.isEmpty {
            // An invalid date, or more than one, means already expired (§5.3).
            guard expires.count == 1, let expiry = HTTPDate.parse(expires[0]) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(response.statusCode) || control.isPublic,
              let lastModified = response.lastModified.flatMap({ HTTPDate.parse($0) })
        else { return 0 }
        return max(0, date.timeIntervalSince(lastModified)) / 10
    }

    /// The statuses a cache may keep with no freshness information (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether a response with `status` and `headers` may be stored (RFC 9111 §3): a status
    /// cacheable by heuristics, or explicit freshness or `public`/`private`. A shared cache stores
    /// no `private` response (`private="X"` aside, stored without X), and an answer to a request
    /// with credentials only when `public`, `s-maxage` or `must-revalidate` allows it (§3.5).
    static func isStorable(status: Int, headers: HTTPHeaders, control: CacheControl, shared: Bool = false, credentials: Bool = false) -> Bool {
        guard status >= 200, status != 206, status != 304 else { return false }
        if shared {
            if control.isPrivate, control.privateFields.isEmpty { return false }
            if credentials, !(control.isPublic || control.sMaxAge != nil || control.mustRevalidate) { return false }
            if control.sMaxAge != nil { return true }
        }
        if heuristicallyCacheable.contains(status) { return true }
        return control.maxAge != nil || headers.contains("Expires") || control.isPublic || control.isPrivate
    }

    private static func firstElement(of value: String) -> Substring {
        let element = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(value)
        return element.trimmingBlanks
    }
}
