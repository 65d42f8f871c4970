import Foundation
import Logging

extension APIClient {
    /// How one request uses the cache. A class, used by one send: its key's digest is computed
    /// once, when the key is first needed (a lookup in a folder with no entries needs none).
    final class CachePlan {
        let cache: ResponseCache
        let draft: CacheKey.Draft
        /// The same key in the public scope, read when the jar's scope holds nothing for a cookie
        /// session's request (see ``APIClient/cacheKey(for:hashingBody:shared:)``).
        let fallback: CacheKey.Draft?
        private var resolvedKey: CacheKey?
        /// The URL before its query, made for the key (the wire request reuses it).
        let urlBase: URLBuilder.Base
        let option: CacheOption
        let offline: Bool
        /// When a stored response answers without the network.
        let freshness: CacheFreshness
        /// Whether the cache is read.
        let reads: Bool
        /// Whether a successful response is stored.
        let saves: Bool
        /// The request's header fields as Courier sends them, before credentials, with the jar's
        /// cookies: what a stored response's `Vary` is compared with.
        let headers: HTTPHeaders
        /// The fields a stored selection keeps only a digest of: credentials.
        let secretHeaders: [String]
        /// The request's `Cache-Control` (`Pragma: no-cache` without one is `no-cache`), read
        /// under ``CacheFreshness/http`` only.
        let control: CacheControl

        init(
            cache: ResponseCache, draft: CacheKey.Draft, fallback: CacheKey.Draft?, urlBase: URLBuilder.Base, option: CacheOption, offline: Bool,
            freshness: CacheFreshness, method: HTTPMethod, usesCache: Bool, saves: Bool, headers: HTTPHeaders, secretHeaders: [String]
        ) {
            self.cache = cache
            self.draft = draft
            self.fallback = fallback
            self.urlBase = urlBase
            self.option = option
            self.offline = offline
            self.freshness = freshness
            self.headers = headers
            self.secretHeaders = secretHeaders
            var reads = usesCache && option != .networkOnly
            var saves = usesCache && saves
            if freshness.isHTTP {
                var control = CacheControl(headers)
                if !headers.contains("Cache-Control"), headers.values(for: "Pragma").contains(where: { $0.lowercased().contains("no-cache") }) {
                    control.noCache = true
                }
                self.control = control
                // A private HTTP cache keeps answers to GET and HEAD, and none a request forbids it to.
                let cacheable = method == .get || method == .head
                reads = reads && cacheable && !control.noStore
                saves = saves && cacheable && !control.noStore
            } else {
                control = CacheControl(nil as String?)
            }
            self.reads = reads
            self.saves = saves
        }

        /// Whether the request says `only-if-cached`: the cache answers, or nothing does.
        var onlyIfCached: Bool { control.onlyIfCached }

        /// The fields of `response` that are not stored besides those no entry keeps: under
        /// ``CacheFreshness/http``, those a `no-cache="…"` names (they may not be given again
        /// without revalidation, RFC 9111 §5.2.2.4), and in a shared cache those `private="…"`
        /// names (§5.2.2.7).
        func withheldFields(of response: TransportResponse) -> [String] {
            guard freshness.isHTTP else { return [] }
            let control = CacheControl(response.headers)
            return control.noCacheFields + (freshness.isShared ? control.privateFields : [])
        }

        /// The stored `entry` as it answers the request: under ``CacheFreshness/http`` with an
        /// `Age` field of its current age, as an HTTP cache gives it (RFC 9111 §5.1).
        func served(_ entry: CachedResponse) -> CachedResponse {
            guard freshness.isHTTP else { return entry }
            var entry = entry
            let age = HTTPFreshness(entry, now: Date(), shared: freshness.isShared).age
            // At most 2³¹ (RFC 9111 §1.2.2), and so for a stored time that is not a number.
            let seconds = age.isFinite ? min(max(age, 0), 2_147_483_648).rounded(.down) : 2_147_483_648
            entry.headers["Age"] = String(Int(seconds))
            return entry
        }

        /// Whether `response` may be stored under the freshness rule: under ``CacheFreshness/http``
        /// a final status its headers allow (RFC 9111 §3), in a shared cache with the rules for
        /// `private` and for requests with credentials (`credentials`), else a 2xx.
        func mayStore(_ response: TransportResponse, credentials: Bool) -> Bool {
            guard freshness.isHTTP else { return (200..<300).contains(response.statusCode) }
            return HTTPFreshness.isStorable(
                status: response.statusCode, headers: response.headers, control: CacheControl(response.headers), shared: freshness.isShared,
                credentials: credentials)
        }

        /// The key, with its digest.
        var key: CacheKey {
            if let resolvedKey { return resolvedKey }
            let key = draft.key(memo: cache.keyMemo)
            resolvedKey = key
            return key
        }

        /// The stored response that may answer the request, if any: none without computing the
        /// digest when nothing is stored for the request's path. A response with a `Vary` answers
        /// only a request whose selecting header fields match those of the request that stored it
        /// (RFC 9111 §4.1): the entry under the key holds the variant stored last, and each variant
        /// is also under a key of its own, found from the names the last one's `Vary` gives.
        /// A store that failed is `storeFailed`, and the request goes on as if nothing were stored.
        /// With `bypassingMemory`, from the cache's store only (what another user of a shared
        /// store just wrote).
        func storedResponse(bypassingMemory: Bool = false) async -> CachedResponse? {
            guard cache.usesStore else { return storedResponseOnDisk() }
            if let found = await storedResponse(in: draft, key: key, bypassingMemory) { return found }
            guard let fallback else { return nil }
            return await storedResponse(in: fallback, key: fallback.key(memo: cache.keyMemo), bypassingMemory)
        }

        private func storedResponse(in draft: CacheKey.Draft, key: CacheKey, _ bypassingMemory: Bool) async -> CachedResponse? {
            guard let entry = await lookup(key, bypassingMemory) else { return nil }
            guard let variantKey = variant(of: entry, in: draft) else { return entry }
            guard let variantKey, let found = await lookup(variantKey, bypassingMemory) else { return nil }
            return matching(found)
        }

        /// ``storedResponse(bypassingMemory:)`` of a cache on disk: no async call on a memory
        /// hit's path.
        func storedResponseOnDisk() -> CachedResponse? {
            if cache.mayHoldEntries(for: draft), let found = storedResponseOnDisk(in: draft, key: key) { return found }
            guard let fallback, cache.mayHoldEntries(for: fallback) else { return nil }
            return storedResponseOnDisk(in: fallback, key: fallback.key(memo: cache.keyMemo))
        }

        private func storedResponseOnDisk(in draft: CacheKey.Draft, key: CacheKey) -> CachedResponse? {
            guard let entry = cache.response(for: key) else { return nil }
            guard let variantKey = variant(of: entry, in: draft) else { return entry }
            guard let variantKey, let found = cache.response(for: variantKey) else { return nil }
            return matching(found)
        }

        /// For a stored `entry` with a `Vary` the request's fields do not match, the key of the
        /// variant that would (`nil` inside when none could: `Vary: *`); `nil` when `entry` answers.
        private func variant(of entry: CachedResponse, in draft: CacheKey.Draft) -> CacheKey?? {
            guard let vary = entry.vary else { return nil }
            guard vary.names != nil else { return .some(nil) }
            if vary.matches(entry.selection, headers: headers, secret: secretHeaders) { return nil }
            return .some(draft.variantKey(vary.selection(of: headers, secret: secretHeaders)))
        }

        /// `variant` if the request's fields match those it was stored for.
        private func matching(_ variant: CachedResponse) -> CachedResponse? {
            guard let own = variant.vary, own.matches(variant.selection, headers: headers, secret: secretHeaders) else { return nil }
            return variant
        }

        /// Whether the cache's store failed during this request (a lookup, a write or a removal).
        private(set) var storeFailed = false

        /// The claim to revalidate a shared store's entry, held until the send ends (when the plan
        /// goes, the claim does, and releases itself).
        var claim: CacheRevalidationClaim?

        private func lookup(_ key: CacheKey, _ bypassingMemory: Bool) async -> CachedResponse? {
            let (entry, failed) = await cache.lookup(key, bypassingMemory: bypassingMemory)
            if failed { storeFailed = true }
            return entry
        }

        /// What claiming the revalidation of the entry among a shared store's users gave.
        enum Claim {
            /// This send revalidates; `nil` when there is nothing to release (a private cache).
            case granted(CacheRevalidationClaim?)
            /// Another user of the store is revalidating it (when not waiting).
            case heldElsewhere
            /// The store failed, or the wait passed its limit: this send revalidates without a claim.
            case failed
        }

        /// Claims the revalidation of the entry for this send, in a shared store.
        func claimRevalidation(waiting: Bool, logger: Logger) async -> Claim {
            guard cache.usesStore, let store = cache.store, store.isShared else { return .granted(nil) }
            do {
                guard let claim = try await store.claimRevalidation(of: key, waiting: waiting) else { return .heldElsewhere }
                return .granted(claim)
            } catch {
                storeFailed = true
                logger.warning("Courier's cache store could not coordinate the revalidation of \(key.relativePath); revalidating without it: \(error)")
                return .failed
            }
        }

        /// Stores `response`, received for the request, under the key, and for a response with a
        /// `Vary` under its variant's key too; a response with `Vary: *` is not stored (no request
        /// could be answered with it).
        func store(_ response: CachedResponse) async {
            var response = response
            let vary = Vary(response.headers)
            if let vary {
                guard vary.names != nil else { return }
                response.selection = vary.selection(of: headers, secret: secretHeaders)
            }
            if !(await cache.keep(response, for: key)) { storeFailed = true }
            if vary != nil, !(await cache.keep(response, for: draft.variantKey(response.selection))) { storeFailed = true }
        }

        /// Removes the entries of one URL path (any query) in the request's scope, and in the
        /// public scope a cookie session reads too.
        func removeEntries(pathDigest: String) async {
            for scope in [draft.scope] + (fallback.map { [$0.scope] } ?? []) {
                if !(await cache.removeEntries(scope: scope, pathDigest: pathDigest)) { storeFailed = true }
            }
        }
    }

    /// The request through the cache as its option says: the cached answer (for
    /// ``CacheOption/both``, handed to `cached` before the network's), or the network's answer
    /// (performed, decoded, then stored or invalidating per the plan), and in offline mode the
    /// cached answer when the network is unreachable. A failure is thrown unreported.
    func serve<Value>(
        _ request: Request<Value>, record: inout RequestRecord, cached: ((Response<Value>) async -> Void)?
    ) async throws(CourierError) -> Response<Value> {
        let plan = try cachePlan(for: request.settings)
        record.urlBase = plan?.urlBase
        guard let plan else {
            // No cache in the way. The cache's path is a function of its own: in unspecialized
            // code each of its generic values is one more allocation on the task, made on entry.
            return try networkAnswer(try await perform(request.settings, record: &record), for: request, record: record)
        }
        return try await serve(request, plan: plan, record: &record, cached: cached)
    }

    /// The network's `response` decoded; a failure to decode comes out completed.
    private func networkAnswer<Value>(
        _ response: TransportResponse, for request: Request<Value>, record: RequestRecord
    ) throws(CourierError) -> Response<Value> {
        do {
            return try decode(response, for: request, record: record, source: .network)
        } catch {
            throw complete(error, record: record)
        }
    }

    /// ``serve(_:record:cached:)`` for a request the cache takes part in, as `plan` says.
    private func serve<Value>(
        _ request: Request<Value>, plan: CachePlan, record: inout RequestRecord, cached: ((Response<Value>) async -> Void)?
    ) async throws(CourierError) -> Response<Value> {
        var settings = request.settings
        var stored: CachedResponse?
        if plan.reads {
            if let entry = plan.cache.usesStore ? await plan.storedResponse() : plan.storedResponseOnDisk(),
               let response = try? decode(plan.served(entry).transportResponse, for: request, record: record, source: .cache) {
                recordCache("hit", record)
                stored = entry
                if plan.option == .cacheOnly || plan.onlyIfCached { return response }
                switch plan.freshness.use(of: entry, request: plan.control) {
                case .fresh:
                    return response
                case .staleWhileRevalidate:
                    revalidateInBackground(settings, entry: entry, key: plan.key.relativePath)
                    return response
                case .validate:
                    await cached?(response)
                    // In a shared store, one user revalidates: the others wait for it, then answer
                    // with what it stored when that is fresh.
                    if case .granted(let granted) = await plan.claimRevalidation(waiting: true, logger: configuration.logger), let granted {
                        plan.claim = granted
                        if let refreshed = await plan.storedResponse(bypassingMemory: true), refreshed.storedAt != entry.storedAt,
                           plan.freshness.use(of: refreshed, request: plan.control) == .fresh,
                           let answer = try? decode(plan.served(refreshed).transportResponse, for: request, record: record, source: .cache) {
                            return answer
                        }
                    }
                    if settings.addConditions(for: entry) { record.revalidating = entry }
                }
            } else {
                recordCache(plan.storeFailed ? "store_failed" : "miss", record)
                if plan.onlyIfCached { throw complete(CourierError.notCached(settings), record: record) }
            }
        }
        do throws(CourierError) {
            let response = try await perform(settings, record: &record)
            if let stored, Self.isServerFailure(response.statusCode),
               plan.freshness.servesOnError(stored, request: plan.control),
               let answer = try? decode(plan.served(stored).transportResponse, for: request, record: record, source: .cache) {
                recordCache("stale", record)
                return answer
            }
            let decoded = try networkAnswer(response, for: request, record: record)
            if !revalidatedUnchanged(response, record: record, freshness: plan.freshness) {
                let failedBefore = plan.storeFailed
                await self.record(response, method: settings.method, plan: plan)
                if plan.storeFailed, !failedBefore { recordCache("store_failed", record) }
            }
            if record.revalidating != nil, record.statusCode == 304 { recordCache("revalidated", record) }
            return decoded
        } catch {
            // stale-if-error: the network failed, or answered with a server failure.
            if let stored, error.kind.isNetworkFailure
                || error.kind.status.map(Self.isServerFailure) == true,
               plan.freshness.servesOnError(stored, request: plan.control),
               let response = try? decode(plan.served(stored).transportResponse, for: request, record: record, source: .cache) {
                recordCache("stale", record)
                return response
            }
            guard plan.offline, error.kind.nature == .unreachable,
                  let entry = await storedOrLookup(stored, plan: plan),
                  let response = try? decode(entry.transportResponse, for: request, record: record, source: .offlineCache)
            else { throw error }
            recordCache("offline", record)
            configuration.logger.debug("Courier \(record.id) answered from the cache: \(error.message)")
            return response
        }
    }

    /// `stored`, else the plan's stored response.
    private func storedOrLookup(_ stored: CachedResponse?, plan: CachePlan) async -> CachedResponse? {
        if let stored { return stored }
        return await plan.storedResponse()
    }

    /// 500, 502, 503 and 504: the statuses `stale-if-error` answers in place of (RFC 5861 §4).
    static func isServerFailure(_ status: Int) -> Bool { status == 500 || status == 502 || status == 503 || status == 504 }

    /// The cache plan, or `nil` when the request neither reads, writes nor invalidates the cache.
    func cachePlan(for request: RequestSettings) throws(CourierError) -> CachePlan? {
        guard let cache = configuration.cache else { return nil }
        let option = request.cacheOption ?? configuration.cacheOption
        let offline = request.offlineMode ?? configuration.offlineMode
        let usesCache = (option != .networkOnly || offline) && request.streamedBody == nil
        guard usesCache || (request.method.isUnsafe && configuration.invalidatesCacheOnWrite) else { return nil }
        var freshness: CacheFreshness
        if let own = request.cacheFreshness {
            try RequestValidation.checkFreshness(own, "The request's cacheFreshness")
            freshness = own
        } else {
            freshness = configuration.cacheFreshness
        }
        if cache.isShared {
            // A cache on a shared store is a shared HTTP cache, whatever the request says.
            try RequestValidation.checkSharedFreshness(freshness, "The request's cacheFreshness")
            freshness = .sharedHTTP
        }
        // A write that only invalidates needs the scope and path, not the body's digest. A shared
        // cache has one scope for every user.
        guard let (draft, urlBase, fallback, cookies) = try? cacheKey(for: request, hashingBody: usesCache, shared: freshness.isShared)
        else { return nil }
        var headers = configuration.defaultHeaders
        headers.merge(request.headers)
        // The jar's cookies go out with the first hop: a stored `Vary: Cookie` is compared with them.
        if let cookies { headers.appendCookies(cookies) }
        return CachePlan(
            cache: cache, draft: draft, fallback: fallback, urlBase: urlBase, option: option, offline: offline, freshness: freshness, method: request.method,
            usesCache: usesCache, saves: request.shouldSaveInCache, headers: headers,
            secretHeaders: secretHeaders)
    }

    /// Whether `response` is a stored entry a `304` confirmed without changing any header field the
    /// cache keeps of it, under a freshness rule that does not read the storage time: storing it
    /// again would rewrite the same entry on every revalidation.
    func revalidatedUnchanged(_ response: TransportResponse, record: RequestRecord, freshness: CacheFreshness) -> Bool {
        guard let stored = record.revalidating, record.statusCode == 304, !freshness.readsStorageTime else { return false }
        // Date aside: it changes with every answer and decides nothing here.
        func withoutDate(_ headers: HTTPHeaders) -> [HTTPHeaders.Field] { headers.fields.filter { !$0.name.caseInsensitiveEquals("Date") } }
        // `response` is the stored entry revalidated by the 304 (`revalidated(by:excluding:)`): its
        // fields are already the ones an entry keeps.
        return withoutDate(stored.headers) == withoutDate(response.headers)
    }

    /// Stores a successful response, or invalidates a write's paths.
    func record(_ response: TransportResponse, method: HTTPMethod, plan: CachePlan) async {
        if method.isUnsafe, configuration.invalidatesCacheOnWrite, (200..<400).contains(response.statusCode) {
            await invalidate(after: response, plan: plan)
        }
        // A shared cache keeps one entry for every user; a private one keeps the user's own, under
        // their scope (or the cookie jar's), as long as it is still theirs.
        let credentials = authentication != nil || plan.headers.contains("Authorization")
        let current = authentication?.cacheScope ?? CacheKey.publicScope
        let stillTheirs = plan.draft.scope == current || (current == CacheKey.publicScope && plan.draft.scope == cookieJar?.cacheScope)
        guard plan.saves, response.statusCode != 304, plan.mayStore(response, credentials: credentials), response.isCacheable,
              plan.freshness.isShared || stillTheirs
        else { return }
        await plan.store(
            CachedResponse(
                statusCode: response.statusCode, storing: response.headers,
                excluding: configuration.authenticationHeaders + plan.withheldFields(of: response), body: response.body, url: response.url))
    }
}

extension APIClient {
    /// Removes the user's cached reads a write that succeeded (or redirected) made stale, of any
    /// query: its own path, the path that answered and its parent, and the paths its `Location` and
    /// `Content-Location` name on the same origin (RFC 9111 §4.4).
    private func invalidate(after response: TransportResponse, plan: CachePlan) async {
        let base = response.url.absoluteString.splittingQuery.base
        var paths = [plan.draft.pathDigest, CacheKey.pathDigest(of: base)]
        if let parent = URL(string: base)?.deletingLastPathComponent().absoluteString {
            paths.append(CacheKey.pathDigest(of: parent.hasSuffix("/") ? String(parent.dropLast()) : parent))
        }
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name], let named = URL(string: value, relativeTo: response.url)?.absoluteURL,
                  named.origin == response.url.origin
            else { continue }
            paths.append(CacheKey.pathDigest(of: named.absoluteString.splittingQuery.base))
        }
        var removed: Set<String> = []
        for path in paths where removed.insert(path).inserted {
            await plan.removeEntries(pathDigest: path)
        }
    }
}

extension RequestSettings {
    /// Makes the request conditional on the stored entry's validators, unless the caller set them;
    /// says whether it added any (the send then revalidates `entry`).
    mutating func addConditions(for entry: CachedResponse) -> Bool {
        var added = false
        if let etag = entry.etag, !headers.contains("If-None-Match") {
            headers["If-None-Match"] = etag
            added = true
        }
        if let lastModified = entry.lastModified, !headers.contains("If-Modified-Since") {
            headers["If-Modified-Since"] = lastModified
            added = true
        }
        return added
    }
}

extension HTTPMethod {
    /// Any method but GET, HEAD, OPTIONS and TRACE (RFC 9110 §9.2.1): the methods whose success
    /// invalidates cached responses (RFC 9111 §4.4).
    var isUnsafe: Bool { !(self == .get || self == .head || self == .options || rawValue == "TRACE") }
}

extension TransportResponse {
    /// Whether the response may be stored: complete (as long as its `Content-Length` says) and not
    /// marked `no-store`.
    var isCacheable: Bool {
        if CacheControl(headers).noStore { return false }
        if let length = headers["Content-Length"].flatMap(Int.init), length != body.count { return false }
        return true
    }
}

extension CachedResponse {
    /// The entry as a transport response, for decoding.
    var transportResponse: TransportResponse {
        TransportResponse(url: url, statusCode: statusCode, headers: headers, body: body)
    }

    /// The response a `304` stands for: this entry's status and body, with its header fields
    /// updated by the `304`'s as RFC 9111 §3.2 says: each field the `304` carries replaces the
    /// stored field of that name, or is added, except `Content-Length` (the `304` has no body);
    /// a stored `Age` goes when the `304` has none (its age starts again).
    /// What a cache never stores is left out here too, and so are `excluded` fields (the
    /// client's captured authentication headers): what is stored again stays free of them.
    func revalidated(by notModified: TransportResponse, excluding excluded: [String]) -> TransportResponse {
        let update = Self.storable(notModified.headers, excluding: excluded + ["Content-Length"])
        // The stored `Age` described the first answer; a 304 without one is a new answer of age 0.
        let ageGone = !update.contains("Age")
        var merged = HTTPHeaders()
        merged.reserveCapacity(headers.count + update.count)
        // A replaced field keeps its place (so an unchanged entry compares equal); new ones go last.
        var placed: Set<String> = []
        func place(_ name: String) {
            guard placed.insert(name.lowercased()).inserted else { return }
            for field in update where field.name.caseInsensitiveEquals(name) { merged.add(name: field.name, value: field.value) }
        }
        for field in headers where !(ageGone && field.name.caseInsensitiveEquals("Age")) {
            if update.contains(field.name) { place(field.name) } else { merged.add(name: field.name, value: field.value) }
        }
        for field in update { place(field.name) }
        return TransportResponse(url: notModified.url, statusCode: statusCode, headers: merged, body: body)
    }
}
