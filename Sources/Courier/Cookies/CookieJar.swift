import Foundation

/// The cookies a client keeps and sends back, by the rules RFC 6265bis gives a user agent that is
/// not a browser, the same on every transport.
///
/// Every ``APIClient`` has one by default (``ClientConfiguration/cookies``): in memory, its own, and
/// emptied by ``APIClient/logout()``. Give clients a jar of yours with ``CookiePolicy/jar(_:)`` to
/// share it, or to keep cookies across launches with
/// ``init(file:maximumPerDomain:maximumCount:isPublicSuffix:)``.
///
/// What it follows:
/// - a cookie goes back only where RFC 6265bis sends it: to its host alone when it named no
///   `Domain` (host-only), else to that domain and its subdomains; under its `Path`; with `Secure`,
///   over https (and wss) only, and such a cookie is never set from http;
/// - `Max-Age` before `Expires`; no cookie lives more than 400 days; an expired cookie is never sent;
/// - `HttpOnly` and `SameSite` are kept (a client is no browser: every request is same-site);
///   `SameSite=None` without `Secure` is refused;
/// - the `__Secure-` and `__Host-` name prefixes;
/// - limits: a name and value of up to 4096 bytes, attribute values of up to 1024, at most
///   ``maximumPerDomain`` cookies a domain and ``maximumCount`` in all, the least recently used
///   going first;
/// - a `Domain` that is a public suffix is refused. A client carries no copy of the Public Suffix
///   List: a single label (`com`) and a short list of common registry suffixes (`co.uk`, `com.au`…)
///   are known; give ``init(file:maximumPerDomain:maximumCount:isPublicSuffix:)`` a lookup in the
///   list for the rest.
///
/// A response's `Set-Cookie` fields are read the same way on each transport: URLSession joins them
/// with `", "`, so they are always joined and split again before a `name=`; a cookie value that holds
/// `", name="` (which RFC 6265's grammar forbids a server to send) reads as two cookies everywhere.
public final class CookieJar: Sendable {
    /// One stored cookie.
    public struct Cookie: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public let value: String
        /// The host it goes to (``isHostOnly``) or the domain whose hosts it goes to.
        public let domain: String
        public let path: String
        /// When it expires; `nil` for a cookie that lasts as long as the jar (a session cookie).
        public let expires: Date?
        public let isSecure: Bool
        public let isHTTPOnly: Bool
        /// Whether it goes to ``domain`` alone, not to its subdomains.
        public let isHostOnly: Bool
        /// `Strict`, `Lax`, `None`, or `Default` for another value; `nil` when not given.
        public let sameSite: String?

        /// Its creation order, kept when a cookie replaces one of the same name, domain and path.
        let order: UInt64
        /// When it was last sent or set, for eviction.
        var lastUsed: Date

        /// Name, domain and path: never the value, which may be a session's secret.
        public var description: String { "cookie \(name) for \(isHostOnly ? "" : ".")\(domain)\(path)" }

        /// The same cookie: equal names, domains, paths, and values and attributes.
        public static func == (lhs: Cookie, rhs: Cookie) -> Bool {
            lhs.name == rhs.name && lhs.value == rhs.value && lhs.domain == rhs.domain && lhs.path == rhs.path
                && lhs.expires == rhs.expires && lhs.isSecure == rhs.isSecure && lhs.isHTTPOnly == rhs.isHTTPOnly
                && lhs.isHostOnly == rhs.isHostOnly && lhs.sameSite == rhs.sameSite
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(domain)
            hasher.combine(path)
        }

        func sameSlot(as other: Cookie) -> Bool {
            name == other.name && domain == other.domain && isHostOnly == other.isHostOnly && path == other.path
        }
    }

    /// The longest a cookie lives, whatever its `Max-Age` or `Expires`: 400 days.
    public static let maximumLifetime: TimeInterval = 400 * 24 * 3600
    /// The most cookies one domain keeps (RFC 6265bis asks for at least 50).
    public let maximumPerDomain: Int
    /// The most cookies the jar keeps.
    public let maximumCount: Int

    private struct State {
        var cookies: [Cookie] = []
        var nextOrder: UInt64 = 0
        /// The response cache's scope for requests that carry this jar's cookies (``cacheScope``).
        var scope = State.newScope()

        static func newScope() -> String {
            "cookies-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        }
    }

    private let state: Locked<State>
    private let file: URL?
    private let isPublicSuffix: @Sendable (String) -> Bool

    /// A jar in memory, or one whose cookies with an expiry (not session cookies, which end with
    /// the process) are kept in `file`, readable by the user alone (0600), written whole and
    /// renamed into place at each change. A missing or unreadable file starts the jar empty.
    /// - Parameters:
    ///   - file: a file URL; a client given a jar with another URL fails every request with
    ///     ``CourierError/Kind/invalidRequest``, and the jar reads and writes no file.
    ///   - maximumPerDomain: the most cookies one domain keeps, at least 1 (a client given a jar
    ///     with less fails every request with ``CourierError/Kind/invalidRequest``).
    ///   - maximumCount: the most cookies the jar keeps, at least 1 (the same).
    ///   - isPublicSuffix: whether a domain is a public suffix, such as a lookup in the Public
    ///     Suffix List, besides the short built-in list (see ``CookieJar``).
    public init(
        file: URL? = nil, maximumPerDomain: Int = 50, maximumCount: Int = 3000,
        isPublicSuffix: (@Sendable (String) -> Bool)? = nil
    ) {
        self.maximumPerDomain = maximumPerDomain
        self.maximumCount = maximumCount
        self.file = file
        if let isPublicSuffix {
            self.isPublicSuffix = { domain in Self.isKnownPublicSuffix(domain) || isPublicSuffix(domain) }
        } else {
            self.isPublicSuffix = Self.isKnownPublicSuffix
        }
        var loaded = State()
        if let file, file.isFileURL, let data = try? Data(contentsOf: file), let saved = try? JSONDecoder().decode(JarFile.self, from: data) {
            let now = Date()
            loaded.cookies = saved.cookies.compactMap { $0.cookie }.filter { ($0.expires ?? .distantFuture) > now }
            loaded.nextOrder = (loaded.cookies.map(\.order).max() ?? 0) + 1
            if JarFile.isScope(saved.scope) { loaded.scope = saved.scope }
        }
        state = Locked(loaded)
    }

    /// Every cookie kept and not expired, oldest first.
    public var cookies: [Cookie] {
        let now = Date()
        return state.withLock { $0.cookies.filter { ($0.expires ?? .distantFuture) > now }.sorted { $0.order < $1.order } }
    }

    /// The cookies a request to `url` carries, in the order they are sent: longer paths first, then
    /// older first.
    public func cookies(for url: URL) -> [Cookie] {
        guard let host = url.host?.lowercased() else { return [] }
        let scheme = url.scheme?.lowercased() ?? ""
        let secure = scheme == "https" || scheme == "wss"
        let path = Self.requestPath(of: url)
        let now = Date()
        return state.withLock { state in
            guard !state.cookies.isEmpty else { return [] }
            var chosen: [Int] = []
            for (index, cookie) in state.cookies.enumerated() {
                guard (cookie.expires ?? .distantFuture) > now,
                      cookie.isHostOnly ? host == cookie.domain : Self.domainMatches(host, cookie.domain),
                      Self.pathMatches(path, cookie.path),
                      !cookie.isSecure || secure
                else { continue }
                chosen.append(index)
            }
            for index in chosen { state.cookies[index].lastUsed = now }
            return chosen.map { state.cookies[$0] }.sorted {
                $0.path.utf8.count != $1.path.utf8.count ? $0.path.utf8.count > $1.path.utf8.count : $0.order < $1.order
            }
        }
    }

    /// What is wrong with the jar's settings, for ``ClientConfiguration``'s check.
    package var problem: String? {
        if let file, !file.isFileURL {
            return "file is \"\(file.absoluteString)\"; it must be a file URL (a file on this device)"
        }
        if maximumPerDomain < 1 { return "maximumPerDomain is \(maximumPerDomain); it must be 1 or more" }
        if maximumCount < 1 { return "maximumCount is \(maximumCount); it must be 1 or more" }
        return nil
    }

    /// Whether the jar keeps no cookie.
    package var isEmpty: Bool { state.withLock { $0.cookies.isEmpty } }

    /// The response cache's scope for responses to requests that carry the jar's cookies:
    /// `"cookies-"` and a random name, kept in the jar's file, replaced by ``removeAll()``. A
    /// cookie names no user Courier knows; what was answered for it stays with the jar.
    package var cacheScope: String { state.withLock { $0.scope } }

    /// The `Cookie` field for a request to `url`, or `nil` when no cookie goes there.
    func header(for url: URL) -> String? {
        guard state.withLock({ !$0.cookies.isEmpty }) else { return nil }
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        return cookies.map { $0.name.isEmpty ? $0.value : "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies of a response from `url`'s `Set-Cookie` fields, as RFC 6265bis §5.7 says;
    /// what it says to ignore is ignored.
    func store(from headers: HTTPHeaders, for url: URL) {
        let lines = SetCookieLine.lines(in: headers)
        guard !lines.isEmpty else { return }
        store(lines, for: url)
    }

    /// Stores the cookies `lines` (`Set-Cookie` field values) set in a response from `url`, as
    /// RFC 6265bis §5.7 says; what it says to ignore (a `Domain` the host is not in, `Secure`
    /// from http, a control character…) is ignored.
    public func store(_ lines: [String], for url: URL) {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return }
        let scheme = url.scheme?.lowercased() ?? ""
        let secure = scheme == "https" || scheme == "wss"
        let now = Date()
        let candidates = lines.compactMap { SetCookieLine($0, now: now) }
        guard !candidates.isEmpty else { return }
        let defaultPath = Self.defaultPath(of: url)
        state.withLock { state in
            var changed = false
            for line in candidates {
                changed = insert(line, host: host, secure: secure, defaultPath: defaultPath, now: now, into: &state) || changed
            }
            changed = evict(now: now, from: &state) || changed
            if changed { save(state.cookies, scope: state.scope) }
        }
    }

    /// Forgets every cookie, in memory and in the jar's file.
    public func removeAll() throws(CourierError) {
        try state.withLock { (state: inout State) throws(CourierError) in
            state.cookies.removeAll()
            state.scope = State.newScope()
            guard let file, file.isFileURL, FileManager.default.fileExists(atPath: file.path) else { return }
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw CourierError(.transport, "The stored cookies at \(file.path) could not be deleted: \(error)", underlyingError: error)
            }
        }
    }

    // MARK: - RFC 6265bis §5.7, storing

    /// Inserts one cookie; whether a cookie with an expiry (one the file keeps) changed.
    private func insert(_ line: SetCookieLine, host: String, secure: Bool, defaultPath: String, now: Date, into state: inout State) -> Bool {
        let expires: Date?
        if let maxAge = line.maxAge {
            expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(Double(maxAge), Self.maximumLifetime))
        } else {
            expires = line.expires
        }
        var domain = line.domain ?? ""
        guard domain.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        if !domain.isEmpty, isPublicSuffix(domain) {
            guard domain == host else { return false }
            domain = ""
        }
        let hostOnly: Bool
        if domain.isEmpty {
            hostOnly = true
            domain = host
        } else {
            guard Self.domainMatches(host, domain) else { return false }
            hostOnly = false
        }
        let path = line.path.flatMap { $0.isEmpty ? nil : $0 } ?? defaultPath
        if line.secure, !secure { return false }
        if line.sameSite == "None", !line.secure { return false }
        let lowerName = line.name.lowercased()
        if lowerName.hasPrefix("__secure-"), !line.secure { return false }
        if lowerName.hasPrefix("__host-"), !(line.secure && hostOnly && path == "/") { return false }
        if line.name.isEmpty {
            let lowerValue = line.value.lowercased()
            if lowerValue.hasPrefix("__secure-") || lowerValue.hasPrefix("__host-") { return false }
        }
        // A cookie from http never shadows a Secure one of the same name (RFC 6265bis §5.7 step 16).
        if !secure, !line.secure, state.cookies.contains(where: { old in
            old.isSecure && old.name == line.name
                && (Self.domainMatches(domain, old.domain) || Self.domainMatches(old.domain, domain))
                && Self.pathMatches(old.path, path)
        }) {
            return false
        }
        var order = state.nextOrder
        var changed = false
        if let index = state.cookies.firstIndex(where: { $0.name == line.name && $0.domain == domain && $0.isHostOnly == hostOnly && $0.path == path }) {
            order = state.cookies[index].order
            changed = state.cookies[index].expires != nil
            state.cookies.remove(at: index)
        } else {
            state.nextOrder += 1
        }
        guard (expires ?? .distantFuture) > now else { return changed }
        state.cookies.append(Cookie(
            name: line.name, value: line.value, domain: domain, path: path, expires: expires, isSecure: line.secure,
            isHTTPOnly: line.httpOnly, isHostOnly: hostOnly, sameSite: line.sameSite, order: order, lastUsed: now))
        return changed || expires != nil
    }

    /// Removes expired cookies, then the least recently used past the limits; whether a cookie with
    /// an expiry went.
    private func evict(now: Date, from state: inout State) -> Bool {
        var changed = false
        state.cookies.removeAll { cookie in
            let expired = (cookie.expires ?? .distantFuture) <= now
            if expired, cookie.expires != nil { changed = true }
            return expired
        }
        var perDomain: [String: Int] = [:]
        for cookie in state.cookies { perDomain[cookie.domain, default: 0] += 1 }
        let maximumPerDomain = max(1, maximumPerDomain), maximumCount = max(1, maximumCount)
        for (domain, count) in perDomain where count > maximumPerDomain {
            let oldest = state.cookies.indices.filter { state.cookies[$0].domain == domain }
                .sorted { state.cookies[$0].lastUsed < state.cookies[$1].lastUsed }
                .prefix(count - maximumPerDomain)
            changed = changed || oldest.contains { state.cookies[$0].expires != nil }
            for index in oldest.sorted(by: >) { state.cookies.remove(at: index) }
        }
        if state.cookies.count > maximumCount {
            let oldest = state.cookies.indices.sorted { state.cookies[$0].lastUsed < state.cookies[$1].lastUsed }
                .prefix(state.cookies.count - maximumCount)
            changed = changed || oldest.contains { state.cookies[$0].expires != nil }
            for index in oldest.sorted(by: >) { state.cookies.remove(at: index) }
        }
        return changed
    }

    /// Writes the cookies with an expiry to the jar's file. A failure to write leaves the cookies
    /// in memory: they are still sent for as long as the process runs.
    private func save(_ cookies: [Cookie], scope: String) {
        guard let file, file.isFileURL else { return }
        let records = JarFile(scope: scope, cookies: cookies.filter { $0.expires != nil }.map(CookieRecord.init))
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try JSONEncoder().encode(records)
            try AtomicFile.write(data, to: file, temporary: AtomicFile.temporaryFile(beside: file), permissions: 0o600)
        } catch {
            // Kept in memory; the next change tries again.
        }
    }

    // MARK: - RFC 6265bis §5.1, matching

    /// Whether `host` domain-matches `domain` (§5.1.3): the same, or a name (not an IP address)
    /// ending in `.domain`.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        let hostBytes = host.utf8, domainBytes = domain.utf8
        if hostBytes.elementsEqual(domainBytes) { return true }
        // Byte by byte: String's `hasSuffix` compares canonically equivalent text, whose byte
        // counts differ (a Kelvin sign is a `K`).
        guard hostBytes.count > domainBytes.count, hostBytes.reversed().starts(with: domainBytes.reversed()),
              hostBytes[hostBytes.index(hostBytes.endIndex, offsetBy: -domainBytes.count - 1)] == UInt8(ascii: ".")
        else { return false }
        return !isIPAddress(host)
    }

    /// Whether `requestPath` path-matches `cookiePath` (§5.1.4), byte by byte.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }

    /// The path of `url` as sent, percent-encoding kept; `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// The default path of a cookie set by a response to `url` (§5.1.4): its path up to the last `/`.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) } && host.contains("."))
    }

    /// A single label, and common registry suffixes of two labels. Not the Public Suffix List.
    static func isKnownPublicSuffix(_ domain: String) -> Bool {
        guard domain.contains(".") else { return true }
        return knownSuffixes.contains(domain)
    }

    private static let knownSuffixes: Set<String> = {
        var suffixes: Set<String> = []
        let registries = [
            "uk": ["co", "org", "me", "ltd", "plc", "net", "ac", "gov", "sch", "nhs", "police"],
            "au": ["com", "net", "org", "edu", "gov", "asn", "id"],
            "nz": ["co", "org", "net", "ac", "govt", "geek", "school"],
            "jp": ["co", "ne", "or", "ac", "go", "ad", "ed", "gr", "lg"],
            "kr": ["co", "ne", "or", "ac", "go", "re"],
            "br": ["com", "net", "org", "gov", "edu", "art", "blog"],
            "cn": ["com", "net", "org", "gov", "edu", "ac"],
            "in": ["co", "net", "org", "gen", "firm", "ind", "ac", "edu", "gov", "res"],
            "za": ["co", "org", "net", "gov", "ac", "edu", "web"],
            "mx": ["com", "net", "org", "gob", "edu"],
            "ar": ["com", "net", "org", "gob", "edu"],
            "tr": ["com", "net", "org", "gov", "edu", "gen"],
            "ru": ["com", "net", "org", "msk", "spb"],
            "ua": ["com", "net", "org", "gov", "edu", "kiev"],
            "pt": ["com", "org", "edu", "gov", "net"],
            "es": ["com", "org", "nom", "gob", "edu"],
            "hk": ["com", "net", "org", "gov", "edu", "idv"],
            "tw": ["com", "net", "org", "gov", "edu", "idv"],
            "sg": ["com", "net", "org", "gov", "edu", "per"],
            "il": ["co", "org", "net", "ac", "gov", "muni"],
        ]
        for (top, seconds) in registries { for second in seconds { suffixes.insert("\(second).\(top)") } }
        // Hosting suffixes under which each name belongs to someone else.
        suffixes.formUnion(["github.io", "gitlab.io", "herokuapp.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev",
                            "appspot.com", "firebaseapp.com", "web.app", "azurewebsites.net", "cloudfront.net",
                            "blogspot.com", "s3.amazonaws.com", "fly.dev", "onrender.com", "ngrok.io", "ngrok-free.app"])
        return suffixes
    }()
}

/// The jar's file: its cache scope and its cookies with an expiry.
private struct JarFile: Codable {
    var scope: String
    var cookies: [CookieRecord]

    /// Whether `scope` is one a jar makes (an edited file's is replaced).
    static func isScope(_ scope: String) -> Bool {
        scope.hasPrefix("cookies-") && scope.utf8.count == 40 && scope.utf8.dropFirst(8).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// A stored cookie as the jar's file keeps it.
private struct CookieRecord: Codable {
    var name: String
    var value: String
    var domain: String
    var path: String
    var expires: Double
    var secure: Bool
    var httpOnly: Bool
    var hostOnly: Bool
    var sameSite: String?
    var order: UInt64

    init(_ cookie: CookieJar.Cookie) {
        name = cookie.name
        value = cookie.value
        domain = cookie.domain
        path = cookie.path
        expires = cookie.expires?.timeIntervalSince1970 ?? 0
        secure = cookie.isSecure
        httpOnly = cookie.isHTTPOnly
        hostOnly = cookie.isHostOnly
        sameSite = cookie.sameSite
        order = cookie.order
    }

    /// The cookie, or `nil` for a record no `Set-Cookie` line could have made (an edited file): a
    /// name or value with a control character or `;` would break the `Cookie` field it goes in.
    var cookie: CookieJar.Cookie? {
        func fits(_ text: String) -> Bool {
            text.utf8.allSatisfy { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F && $0 != UInt8(ascii: ";") }
        }
        guard !domain.isEmpty, path.hasPrefix("/"), expires.isFinite, fits(name), fits(value), fits(domain), fits(path),
              !name.contains("="), name.utf8.count + value.utf8.count <= SetCookieLine.maximumNameAndValue
        else { return nil }
        return CookieJar.Cookie(
            name: name, value: value, domain: domain, path: path, expires: Date(timeIntervalSince1970: expires), isSecure: secure,
            isHTTPOnly: httpOnly, isHostOnly: hostOnly, sameSite: sameSite, order: order, lastUsed: Date())
    }
}

/// Which ``CookieJar`` a client's requests use (``ClientConfiguration/cookies``).
public struct CookiePolicy: Sendable {
    let jar: CookieJar?
    let perClient: Bool

    /// A jar of the client's own, in memory: the default. Cookies set by the API go back to it, on
    /// every transport alike, until ``APIClient/logout()`` empties the jar.
    public static var perClient: CookiePolicy { CookiePolicy(jar: nil, perClient: true) }
    /// No cookies: no `Cookie` field is added and `Set-Cookie` is ignored (a `Cookie` header of the
    /// request's own still goes).
    public static var none: CookiePolicy { CookiePolicy(jar: nil, perClient: false) }
    /// `jar`, which clients given it share (``APIClient/logout()`` of any of them empties it).
    public static func jar(_ jar: CookieJar) -> CookiePolicy { CookiePolicy(jar: jar, perClient: false) }

    /// The jar a new client uses.
    func makeJar() -> CookieJar? { perClient ? CookieJar() : jar }
}
