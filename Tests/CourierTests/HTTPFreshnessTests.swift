import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

@testable import Courier

/// `CacheFreshness.http`: RFC 9111 freshness, response and request directives,
/// stale-while-revalidate and stale-if-error, against the sample server's `/cached/{name}`, whose
/// caching headers each request's query chooses. A test reads where each answer came from
/// (`source`) and how many requests reached the server for the name (`served`).
@Suite struct HTTPFreshnessTests {
    struct Reply: Decodable, Equatable {
        var name: String
        var served: Int
    }

    /// `/cached/{name}` with the query `query` (caching headers), through `.both`.
    func cached(_ name: String, _ query: [String: String] = [:], headers: HTTPHeaders = [:]) -> Request<Reply> {
        Request(.get, "cached/\(name)", query: query.mapValues { .string($0) }, headers: headers, cache: .both)
    }

    /// Runs `body` with a client on each transport whose freshness rule is `.http`, on a fresh
    /// server and cache.
    func withHTTPCache(
        _ kind: TransportKind, configure: @escaping (inout ClientConfiguration) -> Void = { _ in },
        _ body: (APIClient, ImageStoreServer) async throws -> Void
    ) async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                try await kind.with { transport in
                    let client = server.client(transport) {
                        $0.cache = cache
                        $0.cacheOption = .both
                        $0.cacheFreshness = .http
                        $0.errorPresenter = nil
                        configure(&$0)
                    }
                    try await body(client, server)
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func maxAgeAnswersFromTheCacheWithItsAge(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            let first = try await client.send(cached("fresh", ["cc": "max-age=3600", "age": "100"]))
            #expect(first.source == .network && first.value.served == 1)
            let second = try await client.send(cached("fresh", ["cc": "max-age=3600", "age": "100"]))
            #expect(second.source == .cache && second.value.served == 1)
            // The answer carries its current age: the origin's 100 seconds and the time since.
            #expect(second.headers["Age"].flatMap(Int.init).map { $0 >= 100 } == true)
            #expect(server.flakyAttempts("cached/fresh") == 1)

            // max-age=0: stale at once, asked again.
            _ = try await client.send(cached("zero", ["cc": "max-age=0"]))
            let again = try await client.send(cached("zero", ["cc": "max-age=0"]))
            #expect(again.source == .network && again.value.served == 2)
            // An Age beyond max-age: stale on arrival.
            _ = try await client.send(cached("aged", ["cc": "max-age=3600", "age": "7200"]))
            #expect(try await client.send(cached("aged", ["cc": "max-age=3600", "age": "7200"])).source == .network)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func expiresAndLastModifiedGiveFreshnessWithoutMaxAge(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            _ = try await client.send(cached("expires", ["expires": "3600"]))
            #expect(try await client.send(cached("expires", ["expires": "3600"])).source == .cache)
            _ = try await client.send(cached("expired", ["expires": "-60"]))
            #expect(try await client.send(cached("expired", ["expires": "-60"])).source == .network)
            // max-age wins over Expires.
            _ = try await client.send(cached("both", ["expires": "3600", "cc": "max-age=0"]))
            #expect(try await client.send(cached("both", ["expires": "3600", "cc": "max-age=0"])).source == .network)
            // Heuristic: modified 10 hours ago, fresh for an hour (10%).
            _ = try await client.send(cached("modified", ["modified": "36000"]))
            #expect(try await client.send(cached("modified", ["modified": "36000"])).source == .cache)
            // A 201 is not cacheable by heuristics: stored only with explicit freshness.
            _ = try await client.send(cached("created", ["modified": "36000", "status": "201"]))
            #expect(try await client.send(cached("created", ["modified": "36000", "status": "201"])).source == .network)
            _ = try await client.send(cached("created-fresh", ["cc": "max-age=3600", "status": "201"]))
            #expect(try await client.send(cached("created-fresh", ["cc": "max-age=3600", "status": "201"])).source == .cache)
            #expect(server.flakyAttempts("cached/modified") == 1)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func responseDirectivesRevalidateOrKeepOut(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            // no-cache: stored, but revalidated on every use (a 304 here).
            let noCache = ["cc": "max-age=3600, no-cache", "etag": "v1"]
            _ = try await client.send(cached("no-cache", noCache))
            let revalidated = try await client.send(cached("no-cache", noCache))
            #expect(revalidated.source == .network && revalidated.statusCode == 200 && revalidated.value.served == 1)
            #expect(server.flakyAttempts("cached/no-cache") == 2)
            // no-store: never stored, not even for cacheOnly.
            _ = try await client.send(cached("no-store", ["cc": "no-store"]))
            #expect(try await client.send(cached("no-store", ["cc": "no-store"]).cache(.cacheOnly)).source == .network)
            // must-revalidate: once stale, never served stale (stale-while-revalidate ignored).
            let strict = ["cc": "max-age=0, must-revalidate, stale-while-revalidate=600"]
            _ = try await client.send(cached("strict", strict))
            #expect(try await client.send(cached("strict", strict)).source == .network)
            // private: a private cache keeps it.
            _ = try await client.send(cached("private", ["cc": "private, max-age=3600"]))
            #expect(try await client.send(cached("private", ["cc": "private, max-age=3600"])).source == .cache)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func requestDirectivesBoundWhatTheCacheMayAnswer(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            let fresh = ["cc": "max-age=3600"]
            _ = try await client.send(cached("a", fresh))
            for directive in ["no-cache", "max-age=0", "min-fresh=7200", "no-store"] {
                let answer = try await client.send(cached("a", fresh, headers: ["Cache-Control": directive]))
                #expect(answer.source == .network, "\(directive)")
            }
            #expect(try await client.send(cached("a", fresh, headers: ["Pragma": "no-cache"])).source == .network)
            #expect(try await client.send(cached("a", fresh, headers: ["Cache-Control": "max-age=60"])).source == .cache)
            let sent = server.flakyAttempts("cached/a")
            #expect(sent == 6)

            // max-stale accepts a stale answer.
            _ = try await client.send(cached("stale", ["cc": "max-age=0"]))
            let accepted = try await client.send(cached("stale", ["cc": "max-age=0"], headers: ["Cache-Control": "max-stale=600"]))
            #expect(accepted.source == .cache && accepted.value.served == 1)

            // only-if-cached: the cache or nothing, and nothing is sent.
            let onlyCached = try await client.send(cached("stale", ["cc": "max-age=0"], headers: ["Cache-Control": "only-if-cached"]))
            #expect(onlyCached.source == .cache)
            await #expect {
                _ = try await client.send(cached("never-stored", headers: ["Cache-Control": "only-if-cached"]))
            } throws: { error in
                (error as? CourierError)?.kind == .notCached && (error as? CourierError)?.message.contains("only-if-cached") == true
            }
            #expect(server.flakyAttempts("cached/never-stored") == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func staleWhileRevalidateAnswersAtOnceAndRevalidatesOnceInTheBackground(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            let key = "swr-\(kind.rawValue)"
            let query = ["cc": "max-age=0, stale-while-revalidate=600", "hold": key]
            let first = try await client.send(cached("swr", query))
            #expect(first.source == .network && first.value.served == 1)
            // Stale within the window: answered from the cache while one revalidation starts, and
            // waits on the server (held): later stale answers start no other.
            for _ in 0..<3 {
                let answer = try await client.send(cached("swr", query))
                #expect(answer.source == .cache && answer.value.served == 1)
            }
            server.release(key)
            await client.backgroundRevalidationsEnded()
            #expect(server.flakyAttempts("cached/swr") == 2)
            // The revalidation's answer was stored.
            let after = try await client.send(cached("swr", query))
            #expect(after.source == .cache && after.value.served == 2)
            await client.backgroundRevalidationsEnded()

            // Past the window: asked at once.
            let outside = ["cc": "max-age=0, stale-while-revalidate=0", "etag": "e"]
            _ = try await client.send(cached("late", outside))
            #expect(try await client.send(cached("late", outside)).source == .network)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func staleIfErrorAnswersWhenTheServerFails(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            let allowed = ["cc": "max-age=0, stale-if-error=600", "fail": "503"]
            _ = try await client.send(cached("sie", allowed))
            let answer = try await client.send(cached("sie", allowed))
            #expect(answer.source == .cache && answer.value.served == 1)
            #expect(server.flakyAttempts("cached/sie") == 2)

            // Without stale-if-error, or with must-revalidate, the failure stands.
            for (name, control) in [("plain", "max-age=0"), ("strict", "max-age=0, stale-if-error=600, must-revalidate")] {
                let query = ["cc": control, "fail": "503"]
                _ = try await client.send(cached(name, query))
                await #expect {
                    _ = try await client.send(cached(name, query))
                } throws: { error in
                    (error as? CourierError)?.kind == .httpStatus(503)
                }
            }
            // The request's own stale-if-error allows it too.
            let plain = ["cc": "max-age=0", "fail": "500"]
            _ = try await client.send(cached("asked", plain))
            let asked = try await client.send(cached("asked", plain, headers: ["Cache-Control": "stale-if-error=600"]))
            #expect(asked.source == .cache)
        }
    }

    /// Under `.http` a cacheable error status is stored when the client accepts it, and answers with
    /// its status; a request may choose `.http` on a client that does not.
    @Test(arguments: TransportKind.allCases)
    func statusesAndPerRequestRule(kind: TransportKind) async throws {
        try await withHTTPCache(kind, configure: { $0.acceptableStatusCodes = 200..<500; $0.cacheFreshness = .never }) { client, server in
            var gone = cached("gone", ["cc": "max-age=3600", "status": "410"])
            gone.cacheFreshness = .http
            _ = try await client.send(gone)
            let again = try await client.send(gone)
            #expect(again.source == .cache && again.statusCode == 410)
            // The client's own rule (.never) asks the network.
            #expect(try await client.send(cached("gone", ["cc": "max-age=3600", "status": "410"])).source == .network)
            // A request's own .age(.nan) is refused before anything is sent.
            var bad = cached("bad")
            bad.cacheFreshness = .age(.nan)
            await #expect {
                _ = try await client.send(bad)
            } throws: { error in
                (error as? CourierError)?.kind == .invalidRequest
            }
            #expect(server.flakyAttempts("cached/bad") == 0)
        }
    }

    /// A method of the app's own is unsafe (RFC 9110 §9.2.1): its success invalidates, as POST's does.
    @Test(arguments: TransportKind.allCases)
    func anUnsafeMethodOfTheAppsOwnInvalidates(kind: TransportKind) async throws {
        try await withHTTPCache(kind) { client, server in
            let fresh = ["cc": "max-age=3600"]
            _ = try await client.send(cached("purged", fresh))
            #expect(try await client.send(cached("purged", fresh)).source == .cache)
            let purge = Request<Data>(HTTPMethod(rawValue: "PURGE"), "cached/purged")
            #expect(try await client.send(purge).statusCode == 204)
            #expect(try await client.send(cached("purged", fresh)).source == .network)
            // OPTIONS is safe: it leaves the entry.
            #expect(HTTPMethod.options.isUnsafe == false && HTTPMethod(rawValue: "PURGE").isUnsafe)
        }
    }

    @Test func cacheControlIsReadAsTheRFCSays() {
        let control = CacheControl(#"max-age=60, no-cache="X-A, X-B", stale-while-revalidate=30, max-age=10"#)
        #expect(control.maxAge == 60)
        #expect(!control.noCache && control.noCacheFields == ["X-A", "X-B"])
        #expect(control.staleWhileRevalidate == 30)
        #expect(CacheControl("max-age=\"3600\"").maxAge == 3600)
        #expect(CacheControl("max-age=3600.5").maxAge == 0)
        #expect(CacheControl("max-age = 3600").maxAge == 0)
        #expect(CacheControl("max-age=99999999999").maxAge == 2_147_483_648)
        #expect(CacheControl(#"foo="max-age=60", no-store"#).maxAge == nil)
        #expect(CacheControl(#"foo="max-age=60", no-store"#).noStore)
        #expect(CacheControl("MAX-STALE").maxStale == .infinity)
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "max-age=5")
        headers.add(name: "cache-control", value: "must-revalidate")
        let lines = CacheControl(headers)
        #expect(lines.maxAge == 5 && lines.mustRevalidate)
    }

    @Test func httpDatesAreReadInAnyCaseWithSingleSpaces() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("sun, 06 nov 1994 08:49:37 gmt") == expected)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994  08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
    }

    /// A shared cache's rules (`CacheFreshness.sharedHTTP`): `private` is never stored, an answer
    /// to a request with `Authorization` only when `public`, `s-maxage` or `must-revalidate`
    /// allows it, `s-maxage` wins over `max-age`, and `private="X"` is stored without X.
    @Test(arguments: TransportKind.allCases)
    func aSharedCacheFollowsTheSharedRules(kind: TransportKind) async throws {
        try await withHTTPCache(kind, configure: { $0.cacheFreshness = .sharedHTTP }) { client, _ in
            let bearer: HTTPHeaders = ["Authorization": "Bearer shared-test"]
            let cases: [(String, [String: String], HTTPHeaders, Bool)] = [
                ("private", ["cc": "private, max-age=3600"], [:], false),
                ("plain", ["cc": "max-age=3600"], [:], true),
                ("credentials", ["cc": "max-age=3600"], bearer, false),
                ("credentials-public", ["cc": "public, max-age=3600"], bearer, true),
                ("credentials-smaxage", ["cc": "s-maxage=3600"], bearer, true),
                ("credentials-must-revalidate", ["cc": "must-revalidate, max-age=3600"], bearer, true),
                ("smaxage-wins", ["cc": "max-age=0, s-maxage=3600"], [:], true),
                ("smaxage-zero", ["cc": "max-age=3600, s-maxage=0"], [:], false),
            ]
            for (name, query, headers, reused) in cases {
                _ = try await client.send(cached(name, query, headers: headers))
                let second = try await client.send(cached(name, query, headers: headers))
                #expect((second.source == .cache) == reused, "\(name): \(second.source)")
            }
            // private="Set-Cookie": stored, without the field.
            let query = ["cc": "private=\"X-Secret\", max-age=3600"]
            _ = try await client.send(cached("qualified", query))
            let again = try await client.send(cached("qualified", query))
            #expect(again.source == .cache)
        }
        // The private rule keeps what a shared cache may not.
        try await withHTTPCache(kind) { client, _ in
            _ = try await client.send(cached("private", ["cc": "private, max-age=3600"]))
            #expect(try await client.send(cached("private", ["cc": "private, max-age=3600"])).source == .cache)
            _ = try await client.send(cached("smaxage-zero", ["cc": "max-age=3600, s-maxage=0"]))
            #expect(try await client.send(cached("smaxage-zero", ["cc": "max-age=3600, s-maxage=0"])).source == .cache)
        }
    }
}
