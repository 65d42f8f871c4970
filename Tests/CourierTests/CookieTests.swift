import Courier
import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The client's cookie jar: the same on both transports, sent only where RFC 6265bis sends a
/// cookie, never shared between clients or users, emptied by logout. The sample server's
/// `GET /cookies` sets the `set` lines of its query and answers the `Cookie` field it got.
@Suite struct CookieTests {
    struct Echo: Decodable { var cookie: String }

    /// What the server received, after setting `set` (and redirecting to `to`).
    static func exchange(_ client: APIClient, set: [String] = [], to: String? = nil) async throws -> String {
        var query: Parameters = [:]
        if !set.isEmpty { query["set"] = .string(set.joined(separator: "\n")) }
        if let to { query["to"] = .string(to) }
        return try await client.send(Request<Echo>(.get, "cookies", query: query)).value.cookie
    }

    @Test(arguments: TransportKind.allCases)
    func cookiesGoBackToTheirServerAndLogoutForgetsThem(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                #expect(try await Self.exchange(client, set: ["session=abc; Path=/; HttpOnly", "theme=dark; Max-Age=3600"]) == "")
                #expect(try await Self.exchange(client) == "session=abc; theme=dark")
                // A second client (another user's) has a jar of its own.
                #expect(try await Self.exchange(server.client(transport)) == "")
                // Max-Age=0 removes a cookie; a later value replaces an earlier one.
                _ = try await Self.exchange(client, set: ["theme=; Max-Age=0", "session=def"])
                #expect(try await Self.exchange(client) == "session=def")
                #expect(client.cookieJar?.cookies.map(\.name) == ["session"])
                try client.logout()
                #expect(try await Self.exchange(client) == "")
                #expect(client.cookieJar?.cookies.isEmpty == true)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aRedirectCarriesCookiesOnlyToTheHostTheyWereSetFor(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                // Set on the way through a redirect, then sent to the same host's next hop.
                #expect(try await Self.exchange(client, set: ["hop=1"], to: "/cookies") == "hop=1")
                // The same server under another host name: nothing of 127.0.0.1's goes there, and
                // what it sets stays with it.
                var other = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)
                other?.host = "localhost"
                let otherURL = try #require(other?.url).appendingPathComponent("cookies").absoluteString
                let target = otherURL + "?set=there%3D2"  // one line
                #expect(try await Self.exchange(client, to: target) == "")
                #expect(try await Self.exchange(client) == "hop=1")
                #expect(try await client.send(Request<Echo>(.get, otherURL)).value.cookie == "there=2")
                // A Cookie field of the request's own does not follow it to another host.
                var request = Request<Echo>(.get, "cookies", query: ["to": .string(otherURL)])
                request.headers.add(name: "Cookie", value: "own=1")
                #expect(try await client.send(request).value.cookie == "there=2")
                #expect(try await client.send(Request<Echo>(.get, "cookies", headers: ["Cookie": "own=1"])).value.cookie == "own=1; hop=1")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func secureAndPrefixedCookiesAreRefusedOverHTTP(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                _ = try await Self.exchange(client, set: [
                    "secure=1; Secure", "__Secure-a=1", "__Host-b=1; Path=/", "lax=1; SameSite=None", "plain=1; SameSite=Lax",
                    "tld=1; Domain=com", "wide=1; Domain=127.0.0.1", "other=1; Domain=example.org",
                ])
                // A Domain equal to an IP address host makes a host-only cookie of it.
                #expect(try await Self.exchange(client) == "plain=1; wide=1")
                #expect(client.cookieJar?.cookies.first { $0.name == "plain" }?.sameSite == "Lax")
                #expect(client.cookieJar?.cookies.first { $0.name == "wide" }?.isHostOnly == false)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cookiesCanBeTurnedOffAndNeverReachTheProcessWideStorage(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let off = server.client(transport) { $0.cookies = .none }
                #expect(off.cookieJar == nil)
                _ = try await Self.exchange(off, set: ["a=1"])
                #expect(try await Self.exchange(off) == "")
                let on = server.client(transport)
                _ = try await Self.exchange(on, set: ["shared=no; Max-Age=60"])
                #if canImport(FoundationNetworking)
                #expect(HTTPCookieStorage.shared.cookies(for: server.baseURL)?.isEmpty ?? true)
                #endif
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func persistentCookiesSurviveARelaunchAndLogoutErasesTheFile(kind: TransportKind) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookies-\(UUID().uuidString)/jar.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withServer { server in
            try await kind.with { transport in
                let first = server.client(transport) { $0.cookies = .jar(CookieJar(file: file)) }
                _ = try await Self.exchange(first, set: ["kept=1; Max-Age=3600", "session=1"])
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
                // A new process: the cookie with an expiry is back, the session cookie is not.
                let relaunched = server.client(transport) { $0.cookies = .jar(CookieJar(file: file)) }
                #expect(try await Self.exchange(relaunched) == "kept=1")
                try relaunched.logout()
                #expect(!FileManager.default.fileExists(atPath: file.path))
                let afterLogout = server.client(transport) { $0.cookies = .jar(CookieJar(file: file)) }
                #expect(try await Self.exchange(afterLogout) == "")
            }
        }
    }

    /// What was cached for requests that carried the jar's cookies (under the jar's scope) goes
    /// with them at logout: `.cacheOnly` then asks the network. A client that never held cookies
    /// keeps its public entries.
    @Test(arguments: TransportKind.allCases)
    func logoutRemovesResponsesCachedForTheCookiesSession(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookie-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            try await kind.with { transport in
                func client(_ name: String) -> APIClient {
                    server.client(transport) {
                        $0.cache = ResponseCache(directory: directory.appendingPathComponent(name))
                        $0.cacheOption = .both
                        $0.cacheFreshness = .http
                    }
                }
                let profile = Request<Data>(.get, "cached/profile-\(kind)", query: ["cc": "max-age=600"])
                let fromCache = profile.cache(.cacheOnly)
                let withSession = client("session")
                _ = try await Self.exchange(withSession, set: ["session=1"])
                _ = try await withSession.send(profile)
                #expect(try await withSession.send(fromCache).source == .cache)
                try withSession.logout()
                #expect(try await withSession.send(fromCache).source == .network)
                let without = client("public")
                _ = try await without.send(profile)
                try without.logout()
                #expect(try await without.send(fromCache).source == .cache)
            }
        }
    }

    /// Two clients with sessions of their own on one cache (two users of a device, or of a server
    /// app): a response to a request that carried one jar's cookies answers that jar's requests
    /// alone, never another client's or a signed-out request's; what was cached for a request
    /// without cookies answers a session too.
    @Test(arguments: TransportKind.allCases)
    func aCookieSessionsCachedResponsesStayWithItsJar(kind: TransportKind) async throws {
        struct Seen: Decodable { var served: Int }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookie-scope-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            try await kind.with { transport in
                let cache = ResponseCache(directory: directory)
                func client() -> APIClient {
                    server.client(transport) {
                        $0.cache = cache
                        $0.cacheOption = .both
                        $0.cacheFreshness = .http
                    }
                }
                let request = Request<Seen>(.get, "cached/scoped-\(kind)", query: ["cc": "max-age=600"], cache: .cacheOnly)
                let ana = client(), bruno = client(), nobody = client()
                // Cached for a request without cookies: a session may read it, as anyone may.
                let shared = Request<Seen>(.get, "cached/before-\(kind)", query: ["cc": "max-age=600"], cache: .cacheOnly)
                #expect(try await nobody.send(shared).source == .network)
                _ = try await Self.exchange(ana, set: ["session=ana"])
                #expect(try await ana.send(shared).source == .cache)
                _ = try await Self.exchange(bruno, set: ["session=bruno"])
                #expect(try await ana.send(request).source == .network)
                #expect(try await ana.send(request).source == .cache)
                #expect(try await bruno.send(request).source == .network)
                #expect(try await nobody.send(request).source == .network)
                // The jar keeps its scope in its file: a relaunch finds its responses.
                let file = directory.appendingPathComponent("jar.json")
                let kept = server.client(transport) {
                    $0.cache = cache
                    $0.cacheFreshness = .http
                    $0.cookies = .jar(CookieJar(file: file))
                }
                _ = try await Self.exchange(kept, set: ["session=kept; Max-Age=600"])
                _ = try await kept.send(request)
                let relaunched = server.client(transport) {
                    $0.cache = cache
                    $0.cacheFreshness = .http
                    $0.cookies = .jar(CookieJar(file: file))
                }
                #expect(try await relaunched.send(request).source == .cache)
            }
        }
    }

    /// A stored response with `Vary: Cookie` answers only a request with the same cookies from the
    /// jar: a session that changed gets its own answer, not the last session's.
    @Test(arguments: TransportKind.allCases)
    func aResponseThatVariesByCookieAnswersOnlyTheSameCookies(kind: TransportKind) async throws {
        struct Varied: Decodable { var varied: String? }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookie-vary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) {
                    $0.cache = ResponseCache(directory: directory)
                    $0.cacheOption = .both
                    $0.cacheFreshness = .http
                }
                let request = Request<Varied>(.get, "cached/vary-\(kind)", query: ["cc": "max-age=600", "vary": "Cookie"], cache: .cacheOnly)
                _ = try await Self.exchange(client, set: ["session=one"])
                #expect(try await client.send(request).value.varied == "session=one")
                let again = try await client.send(request)
                #expect(again.source == .cache && again.value.varied == "session=one")
                _ = try await Self.exchange(client, set: ["session=two"])
                let changed = try await client.send(request)
                #expect(changed.source == .network && changed.value.varied == "session=two")
            }
        }
    }

    /// The jar's cookies and the server's `Set-Cookie` reach a HAR cassette redacted, as the
    /// credentials do: names and attributes stay, values never.
    @Test(arguments: TransportKind.allCases)
    func cookiesReachACassetteRedacted(kind: TransportKind) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("cookies.har")
        try await withServer { server in
            try await kind.with { transport in
                let configuration = ClientConfiguration(baseURL: server.baseURL)
                let cassette = try Cassette(file: file, redaction: CassetteRedaction.standard(for: configuration))
                let client = server.client(RecordingTransport(wrapping: transport, cassette: cassette))
                _ = try await Self.exchange(client, set: ["sid=s3cr3t-77e1; Path=/; HttpOnly"])
                #expect(try await Self.exchange(client) == "sid=s3cr3t-77e1")
                try cassette.flush()
            }
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("s3cr3t-77e1"))
        #expect(text.contains("sid=REDACTED"))
    }

    /// What a server may send that the RFC says to ignore, through the jar itself: nothing of it
    /// is kept, and nothing crashes.
    @Test func badInputIsIgnoredAsTheRFCSays() throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "http://api.example.com/v1/items"))
        let big = String(repeating: "x", count: 10 << 10)
        jar.store(["nul=a\u{0}b", "cr=a\rb", "lf=a\nb", "big=\(big)", "far=1; Expires=Fri, 01 Jan 10000 00:00:00 GMT", "=", ""], for: url)
        // The year 10000 is no cookie date: the Expires is ignored and the cookie lasts the session.
        #expect(jar.cookies.map(\.name) == ["far"])
        #expect(jar.cookies.first?.expires == nil)
        // A thousand cookies: the domain keeps its limit, the most recently set.
        jar.store((0..<1000).map { "c\($0)=\($0)" }, for: url)
        #expect(jar.cookies.count == jar.maximumPerDomain)
        // Undecodable bytes arrive as U+FFFD from the transports, and are kept as text.
        jar.store([String(decoding: [0x61, 0x3D, 0xFF, 0xFE], as: UTF8.self)], for: url)
        #expect(jar.cookies(for: url).contains { $0.name == "a" })
        // Host-only cookies stay on their host; a domain cookie reaches subdomains, never a
        // sibling or the public suffix above it.
        let host = CookieJar()
        host.store(["only=1", "wide=1; Domain=example.com", "suffix=1; Domain=co.uk"], for: try #require(URL(string: "https://example.com/")))
        #expect(host.cookies(for: try #require(URL(string: "https://api.example.com/"))).map(\.name) == ["wide"])
        #expect(host.cookies(for: try #require(URL(string: "https://example.com/"))).map(\.name) == ["only", "wide"])
        #expect(host.cookies(for: try #require(URL(string: "https://example.org/"))).isEmpty)
        host.store(["uk=1; Domain=co.uk"], for: try #require(URL(string: "https://shop.co.uk/")))
        #expect(host.cookies(for: try #require(URL(string: "https://other.co.uk/"))).isEmpty)
        // An expired cookie is not sent: one whose Expires has passed is never kept.
        host.store(["old=1; Expires=Thu, 01 Jan 2015 00:00:00 GMT"], for: try #require(URL(string: "https://example.com/")))
        #expect(!host.cookies.contains { $0.name == "old" })
        // Cookies never print their values.
        #expect(!"\(host.cookies)".contains("=1"))
        // An edited file: a value that would break the Cookie field is not loaded.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookies-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let expires = Date().timeIntervalSince1970 + 3600
        func record(_ name: String, _ value: String) -> String {
            #"{"name":"\#(name)","value":"\#(value)","domain":"example.com","path":"/","expires":\#(expires),"secure":false,"httpOnly":false,"hostOnly":true,"order":1}"#
        }
        let records = [record("good", "1"), record("bad", "1\\r\\nX-Injected: 1"), record("semi", "1; evil=2")].joined(separator: ",")
        try Data(#"{"scope":"../../etc","cookies":[\#(records)]}"#.utf8).write(to: file)
        #expect(CookieJar(file: file).cookies.map(\.name) == ["good"])
        #expect(CookieJar(file: file).cacheScope.hasPrefix("cookies-"))
        try Data("not json".utf8).write(to: file)
        #expect(CookieJar(file: file).cookies.isEmpty)
    }

    /// Paths and domains are matched byte by byte: text that Swift's `String` finds equal to text
    /// of another length (a Kelvin sign and a `K`) neither matches nor crashes the matching, which
    /// runs in a `courier-test-helper cookie-probe` process of its own.
    @Test func canonicallyEquivalentPathsAndDomainsMatchByBytes() async throws {
        let outcome = try await ChildProcess.run(helper: ["cookie-probe"], within: .seconds(60))
        #expect(outcome.succeeded, "\(outcome)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines == [
            "http://example.com/Kx ",
            "http://example.com/K plain,s",
            "http://k.example.com/ ",
            "http://example.com/%E2%84%AA ",
        ], "\(outcome.output)")
    }

    /// A jar the app built wrongly fails every request of the client with a clear error, before
    /// anything is sent, and reads no file from a URL that is not a file's.
    @Test func aJarBuiltWronglyFailsEveryRequestBeforeSending() async throws {
        try await withServer { server in
            for (jar, words) in [
                (CookieJar(maximumPerDomain: 0), "maximumPerDomain is 0"),
                (CookieJar(maximumCount: -1), "maximumCount is -1"),
                (CookieJar(file: URL(string: "http://127.0.0.1:9/jar.json")), "must be a file URL"),
            ] {
                let client = server.client(URLSessionTransport()) { $0.cookies = .jar(jar) }
                let error = await #expect(throws: CourierError.self) { try await Self.exchange(client) }
                #expect(error?.kind == .invalidRequest && error?.message.contains(words) == true, "\(String(describing: error))")
            }
            #expect(server.requestCount("GET", "/cookies") == 0)
        }
    }

    /// The Public Suffix List, as the `publicsuffixlist` package from PyPI keeps it, given to a
    /// jar as its lookup: suffixes the built-in list does not know are refused too.
    @Test func aJarRefusesThePublicSuffixesOfTheMaintainedList() async throws {
        let python = try await TestTools.executable("python", in: .frameworks)
        let found = try await ChildProcess.run(
            executable: python,
            arguments: ["-c", "import os, publicsuffixlist; print(os.path.join(os.path.dirname(publicsuffixlist.__file__), 'public_suffix_list.dat'))"],
            within: .seconds(60))
        let path = found.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let rules = Set(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("//") })
        #expect(rules.count > 5000, "\(path)")
        // A domain is a public suffix by a rule of its own or a wildcard over its parent, unless an
        // exception names it.
        let isPublicSuffix: @Sendable (String) -> Bool = { domain in
            guard !rules.contains("!" + domain) else { return false }
            let parent = domain.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            return rules.contains(domain) || rules.contains("*." + parent)
        }
        let listed = CookieJar(isPublicSuffix: isPublicSuffix)
        let builtIn = CookieJar()
        for (host, domain) in [("shop.kyoto.jp", "kyoto.jp"), ("a.b.compute.amazonaws.com", "b.compute.amazonaws.com"), ("my.myshopify.com", "myshopify.com")] {
            let url = try #require(URL(string: "https://\(host)/"))
            listed.store(["s=1; Domain=\(domain)"], for: url)
            builtIn.store(["s=1; Domain=\(domain)"], for: url)
            #expect(listed.cookies(for: url).isEmpty, "\(domain) is on the list")
            #expect(!builtIn.cookies(for: url).isEmpty, "\(domain) is not on the built-in list")
            try builtIn.removeAll()
        }
        // A registrable domain under a listed suffix still takes cookies, and so does an exception
        // to a wildcard (`!city.kawasaki.jp` under `*.kawasaki.jp`).
        for (host, domain) in [("www.shop.kyoto.jp", "shop.kyoto.jp"), ("www.city.kawasaki.jp", "city.kawasaki.jp")] {
            let url = try #require(URL(string: "https://\(host)/"))
            listed.store(["s=1; Domain=\(domain)"], for: url)
            #expect(listed.cookies(for: url).map(\.domain) == [domain])
        }
    }

    /// The http-state cases (`../shared/http-state/parser.json`, beside the repository) through the
    /// jar on both transports, as `Scripts/http-state.sh` scores them after the suite.
    @Test func theHTTPStateCasesPassOnBothTransports() async throws {
        let cases = TestTools.root.appendingPathComponent("../shared/http-state/parser.json").standardizedFileURL
        guard FileManager.default.fileExists(atPath: cases.path) else {
            print("http-state: no copy of the cases at \(cases.path); not scored")
            return
        }
        let server = try await ToolServer.start(python: "http-state-server.py", [cases.path], in: .frameworks)
        defer { Task { await server.stop() } }
        var failures: [String: Set<String>] = [:]
        for transport in ["urlsession", "ahc"] {
            let outcome = try await ChildProcess.run(
                helper: ["http-state", "--transport", transport, "--cases", cases.path, "--port", "\(server.url.port ?? 0)"],
                within: .seconds(600))
            #expect(outcome.succeeded, "\(outcome.errors)")
            let lines = outcome.output.split(separator: "\n")
            let score = lines.last.map(String.init) ?? ""
            print(score)
            let passed = Int(score.split(separator: " ").dropFirst().first ?? "") ?? 0
            #expect(passed >= 200, "\(score)")
            failures[transport] = Set(lines.filter { $0.hasPrefix("FAIL") }.map { String($0.split(separator: ":").first ?? "") })
            // The transport refused the answer itself (URLSession on Linux: a field of spaces).
            failures[transport + "-refused"] = Set(lines.filter { $0.hasPrefix("FAIL") && $0.contains("setting failed") }
                .map { String($0.split(separator: ":").first ?? "") })
        }
        // The jar behaves the same on each: a case fails on one transport and not the other only
        // where that transport refused the whole answer before Courier saw it.
        let urlsession = failures["urlsession"] ?? [], ahc = failures["ahc"] ?? []
        #expect(urlsession.subtracting(ahc) == failures["urlsession-refused"] ?? [])
        #expect(ahc.subtracting(urlsession) == failures["ahc-refused"] ?? [])
    }
}
