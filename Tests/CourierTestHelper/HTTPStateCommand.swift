import ArgumentParser
import Courier
import CourierAsyncHTTPClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `courier-test-helper http-state`: runs the http-state cookie cases (the IETF http-state working
/// group's `parser.json`) through an ``APIClient`` and its ``CookieJar``, against
/// `Scripts/http-state-server.py` reached as the HTTP proxy for every host the cases name.
///
/// Each case has a jar of its own. The client asks `http://home.example.org:8888/cookie-parser?CASE`
/// (the server answers the case's `Set-Cookie` lines), then the case's `sent-to` URL (by default
/// `/cookie-parser-result?CASE`), whose body is the `Cookie` field the server received. That field
/// is compared with the cookies the case expects, written as RFC 6265bis writes them
/// (`name=value; …`, a cookie with an empty name as its value alone).
///
/// Where the expectation is no longer what RFC 6265bis says, the case is scored by 6265bis, and
/// the line says so (``Self.rfc6265bis``). Prints a line per case (`pass`/`FAIL`, what was expected
/// and what came, and why a case is scored otherwise), then `http-state: N of 222 (TRANSPORT)`.
struct HTTPStateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-state", abstract: "Score the http-state cookie cases through Courier's cookie jar.")

    @Option(help: "The transport: urlsession or ahc.")
    var transport = "ahc"

    @Option(help: "The cases: the http-state repository's tests/data/parser.json.")
    var cases: String

    @Option(help: "The port of Scripts/http-state-server.py on 127.0.0.1.")
    var port: Int

    struct Case: Decodable {
        struct Cookie: Decodable {
            var name: String
            var value: String
        }

        var test: String
        var received: [String]
        var sent: [Cookie]
        var sentTo: String?

        enum CodingKeys: String, CodingKey {
            case test, received, sent
            case sentTo = "sent-to"
        }
    }

    /// Cases whose expected `Cookie` field RFC 6265bis (or today's date) changes: the field it
    /// gives, and why.
    static let rfc6265bis: [String: (expected: String, why: String)] = {
        let nameless = "RFC 6265bis §5.6 keeps a cookie without '=' (or with an empty name) as one with an empty name, sent as its value alone; RFC 6265 ignored it"
        let expired = "its Expires (7 Aug 2019) has passed: an expired cookie is not sent"
        return [
            "0002": ("", expired),
            "COMMA0006": ("", expired),
            "COMMA0007": ("", expired),
            "0004": ("foo", nameless),
            "0023": ("foo", nameless),
            "0024": ("foo", nameless),
            "0025": ("foo", nameless),
            "0026": ("foo", nameless),
            "0027": ("bar", nameless),
            "0021": ("a=b; x; c=d", nameless),
            "0028": ("foo", nameless),
            "NAME0031": ("\"foo", nameless),
            "NAME0032": ("\"foo\\\"bar", nameless),
            "MOZILLA0012": ("test=\"fubar! = foo; five", nameless),
            "MOZILLA0014": ("six", nameless),
            "MOZILLA0015": ("seven", nameless),
            "MOZILLA0016": ("eight", nameless),
            "MOZILLA0017": ("eight; test=six", nameless),
            "NAME0017": ("a=bar", nameless),
            "NAME0023": ("foo", nameless),
            "NAME0025": ("==a=bar", nameless),
            "NAME0028": ("a", nameless),
            "NAME0033": ("aaa", nameless),
            "CHROMIUM0009": ("BLAHHH", nameless),
            "CHROMIUM0010": ("\"BLA\\\"HHH\"", nameless),
            "CHROMIUM0012": ("ABC", nameless),
            "DISABLED_CHROMIUM0022": ("", "RFC 6265bis §5.6 ignores a Set-Cookie line with a control character (NUL) entirely"),
            "DISABLED_CHROMIUM0023": ("", "RFC 6265bis §5.6 ignores a Set-Cookie line with a control character (CR) entirely"),
            "DISABLED_PATH0029": ("", "RFC 6265bis matches paths as sent, percent-encoding kept: /f%6Fo/ is not under /foo/ (the case was disabled upstream for this)"),
        ]
    }()

    func run() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: cases))
        let all = try JSONDecoder().decode([Case].self, from: data)
        let wire: any HTTPTransport
        switch transport {
        case "urlsession":
            // libcurl, under swift-corelibs-foundation, takes its proxy from the environment; this
            // process has started no transfer yet.
            setenv("http_proxy", "http://127.0.0.1:\(port)", 1)
            wire = URLSessionTransport(configuration: .ephemeral)
        case "ahc":
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.proxy = .init(host: "127.0.0.1", port: port)
            wire = AsyncHTTPClientTransport(configuration: configuration)
        default:
            throw ValidationError("--transport must be urlsession or ahc, not \(transport)")
        }
        var passed = 0
        for testCase in all {
            let (pass, line) = await run(testCase, on: wire)
            if pass { passed += 1 }
            print(line)
        }
        print("http-state: \(passed) of \(all.count) (\(transport))")
    }

    private func run(_ testCase: Case, on wire: any HTTPTransport) async -> (Bool, String) {
        let name = testCase.test.lowercased().replacingOccurrences(of: "_", with: "-")
        let jar = CookieJar()
        var configuration = ClientConfiguration(baseURL: URL(string: "http://home.example.org:8888")!)
        configuration.cookies = .jar(jar)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.deduplicatesRequests = false
        configuration.timeout = 10
        configuration.redirects = .none
        let client = APIClient(configuration: configuration, transport: wire)
        let override = Self.rfc6265bis[testCase.test]
        let expected = override?.expected ?? testCase.sent.map { $0.name.isEmpty ? $0.value : "\($0.name)=\($0.value)" }.joined(separator: "; ")
        var setError = ""
        do {
            _ = try await client.send(Request<Data>(.get, "http://home.example.org:8888/cookie-parser?\(name)"))
        } catch {
            // A line a transport refuses (a NUL in a field) sets nothing; what comes back still counts.
            setError = " (setting failed: \(error.message))"
        }
        let target = testCase.sentTo.map { $0.hasPrefix("http") ? $0 : "http://home.example.org:8888" + $0 }
            ?? "http://home.example.org:8888/cookie-parser-result?\(name)"
        let got: String
        do {
            let response = try await client.send(Request<Data>(.get, target))
            got = String(decoding: response.value, as: UTF8.self)
        } catch {
            return (false, "FAIL \(testCase.test): the request for the result failed: \(error)")
        }
        let pass = got == expected
        var line = "\(pass ? "pass" : "FAIL") \(testCase.test): expected \(Self.show(expected)), got \(Self.show(got))\(setError)"
        if let override { line += " [scored by RFC 6265bis: \(override.why)]" }
        return (pass, line)
    }

    private static func show(_ text: String) -> String {
        let escaped = text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
        return escaped.count > 120 ? "\"\(escaped.prefix(60))…\" (\(text.utf8.count) bytes)" : "\"\(escaped)\""
    }
}
