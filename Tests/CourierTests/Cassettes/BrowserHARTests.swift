import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// HAR files as browsers and proxies write them replay in Courier: a site's root, URLs that differ
/// only in how they are written, bodies written decoded beside their `Content-Encoding`, and
/// requests that got no answer (kept, and replayed as the failure they were).
@Suite struct BrowserHARTests {
    /// A replaying client on `fixture`'s site, its cassette, and the file's folder (removed by the caller).
    func replaying(_ fixture: BrowserHARFixtures.Fixture) throws -> (APIClient, Cassette, TemporaryDirectory) {
        let directory = try TemporaryDirectory.created()
        let file = directory.url.appendingPathComponent("export.har")
        try Data(fixture.text.utf8).write(to: file)
        let cassette = try Cassette(file: file, mode: .none)
        var configuration = ClientConfiguration(baseURL: URL(string: fixture.origin)!)
        configuration.cache = nil
        configuration.errorPresenter = nil
        return (APIClient(configuration: configuration, transport: ReplayTransport(cassette: cassette)), cassette, directory)
    }

    /// The failure a request matching an entry with no answer replays.
    func failure(_ client: APIClient, _ request: Request<Data>) async -> CourierError? {
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func chromesExportReplaysItsRootItsDecodedBodiesAndItsFailures() async throws {
        let fixture = BrowserHARFixtures.chrome
        let (client, cassette, directory) = try replaying(fixture)
        defer { directory.remove() }
        #expect(cassette.entryCount == 4)
        let page = try await client.send(Request<Data>(.get, ""))
        #expect(page.statusCode == 200 && String(decoding: page.data, as: UTF8.self).hasPrefix("<!doctype html>"))
        let products = try await client.send(Request<JSONValue>(.get, "api/products", query: ["sort": "price", "page": 1]))
        #expect(products.value["products"]?[0]?["name"] == .string("Kettle"))
        // The body was written decoded: it replays without the fields of the encoded bytes.
        #expect(products.headers["Content-Encoding"] == nil && products.headers["Content-Length"] == nil)
        #expect(products.headers["Vary"] == "Accept-Encoding")

        let blocked = await failure(client, Request<Data>(.get, "https://ads.example/tag.js"))
        #expect(blocked?.kind == .cannotConnect)
        #expect(blocked?.message.contains("net::ERR_BLOCKED_BY_CLIENT") == true)
        let aborted = await failure(client, Request<Data>(.post, "api/track", body: .data(Data(#"{"event":"x"}"#.utf8), contentType: "application/json")))
        #expect(aborted?.kind == .cancelled)
        #expect(aborted?.message.contains("net::ERR_ABORTED") == true)
        #expect(cassette.unusedEntryCount == 0)
        print("HAR fixture \(fixture.writer): 2 of \(fixture.answered) answered entries replayed; 2 entries without an answer replayed as failures")
    }

    @Test func firefoxsExportMatchesWhateverWayItsURLsAreWritten() async throws {
        let fixture = BrowserHARFixtures.firefox
        let (client, cassette, directory) = try replaying(fixture)
        defer { directory.remove() }
        // Recorded as https://NEWS.example:443/ : the same URL as https://news.example/.
        let page = try await client.send(Request<Data>(.get, "/"))
        #expect(page.statusCode == 200 && page.data == Data("<h1>Today's news</h1>".utf8))
        // Recorded percent-encoded; asked with the character itself.
        let text = try await client.send(Request<String>(.get, "café", query: ["lang": "pt"], serializer: .string))
        #expect(text.value == "café com pão")
        let blocked = await failure(client, Request<Data>(.get, "https://tracker.example/pixel.gif"))
        #expect(blocked?.kind == .cannotConnect && blocked?.message.contains("got no answer") == true)
        #expect(cassette.unusedEntryCount == 0)
        print("HAR fixture \(fixture.writer): 2 of \(fixture.answered) answered entries replayed; 1 entry without an answer replayed as a failure")
    }

    @Test func safarisExportReplaysBase64BodiesAndAnEntryWithNoResponse() async throws {
        let fixture = BrowserHARFixtures.safari
        let (client, cassette, directory) = try replaying(fixture)
        defer { directory.remove() }
        let page = try await client.send(Request<Data>(.get, ""))
        #expect(page.data == Data("<p>Map view</p>\n".utf8))
        let tile = try await client.send(Request<JSONValue>(.get, "tiles/1/2/3.json"))
        #expect(tile.value == .object(["tile": .array([.int(1), .int(2), .int(3)])]))
        let missing = await failure(client, Request<Data>(.get, "tiles/9/9/9.json"))
        #expect(missing?.kind == .cannotConnect)
        #expect(cassette.unusedEntryCount == 0)
        print("HAR fixture \(fixture.writer): 2 of \(fixture.answered) answered entries replayed; 1 entry without a response replayed as a failure")
    }

    /// A body kept as text replays as the bytes its writer decoded, told by the length the file
    /// gives it: Firefox's and Safari's UTF-8 script with no charset (written decoded beside
    /// `Content-Encoding: gzip`), Chrome's binary type kept one byte a character, mitmproxy's
    /// ISO 8859-1 page with its encoded length and `compression`, and a textual body with no
    /// length (UTF-8).
    @Test func textBodiesReplayAsTheBytesTheirWriterDecoded() async throws {
        let script = "/*! clipboard.js © Zeno Rocha */ var a = 1;\n"
        let scriptBytes = Data(script.utf8)
        let binary = (0..<256).map { Character(Unicode.Scalar(UInt8($0))) }.filter { $0 != "\u{0}" }
        let binaryText = String(binary)
        let binaryBytes = Data((1..<256).map { UInt8($0) })
        let page = "<p>Olá, café</p>"
        let pageLatin1 = try #require(page.data(using: .isoLatin1))
        func escaped(_ text: String) -> String {
            var json = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F: json += String(format: "\\u%04x", scalar.value)
                default: json.unicodeScalars.append(scalar)
                }
            }
            return json
        }
        // path, response headers, content (as the writer writes it), the bytes that must replay
        let cases: [(String, String, String, Data)] = [
            ("firefox.js", #"{"name": "Content-Type", "value": "text/javascript"}, {"name": "Content-Encoding", "value": "gzip"}"#,
             #"{"mimeType": "text/javascript", "size": \#(scriptBytes.count), "text": "\#(escaped(script))"}"#, scriptBytes),
            ("safari.js", #"{"name": "Content-Type", "value": "text/javascript"}"#,
             #"{"size": \#(scriptBytes.count), "compression": 0, "mimeType": "text/javascript", "text": "\#(escaped(script))"}"#, scriptBytes),
            ("chrome.bin", #"{"name": "content-type", "value": "application/vnd.google.octet-stream-compressible"}"#,
             #"{"size": \#(binaryBytes.count), "mimeType": "application/vnd.google.octet-stream-compressible", "text": "\#(escaped(binaryText))"}"#, binaryBytes),
            ("mitmproxy.html", #"{"name": "Content-Type", "value": "text/html"}, {"name": "Content-Encoding", "value": "gzip"}"#,
             #"{"size": 10, "compression": \#(pageLatin1.count - 10), "mimeType": "text/html", "text": "\#(escaped(page))"}"#, pageLatin1),
            ("nosize.txt", #"{"name": "Content-Type", "value": "text/plain"}"#,
             #"{"mimeType": "text/plain", "text": "\#(escaped(page))"}"#, Data(page.utf8)),
        ]
        let entries = cases.map { path, headers, content, _ in
            """
            {"startedDateTime": "2026-11-20T10:00:00.000Z", "time": 1, "timings": {"send": 0, "wait": 1, "receive": 0},
             "request": {"method": "GET", "url": "https://files.example/\(path)", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [\(headers)], "cookies": [], "content": \(content),
               "redirectURL": "", "headersSize": -1, "bodySize": -1}}
            """
        }
        let text = #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["# + entries.joined(separator: ",") + "]}}"
        let fixture = BrowserHARFixtures.Fixture(writer: "each browser's shape", text: text, origin: "https://files.example", answered: cases.count)
        let (client, _, directory) = try replaying(fixture)
        defer { directory.remove() }
        for (path, _, _, expected) in cases {
            let body = try await client.send(Request<Data>(.get, path)).data
            #expect(body == expected, "\(path): \(body.count) bytes replayed, \(expected.count) written")
        }
    }

    /// A site's root is `/` however it is asked for: `""` and `"/"` on a base URL without a path
    /// send and record `https://host/`, and match an entry recorded as `https://host` too.
    @Test func aSitesRootIsSlashWhateverTheRequestSays() throws {
        for path in ["", "/"] {
            let client = APIClient(baseURL: URL(string: "https://example.com")!)
            #expect(try client.transportRequest(for: Request<Data>(.get, path)).url.absoluteString == "https://example.com/")
            let absolute = try client.transportRequest(for: Request<Data>(.get, "https://other.example"))
            #expect(absolute.url.absoluteString == "https://other.example/")
            let query = try client.transportRequest(for: Request<Data>(.get, path, query: ["q": "1"]))
            #expect(query.url.absoluteString == "https://example.com/?q=1")
        }
    }

    /// Matching compares URLs as HTTP means them.
    @Test(arguments: [
        ("https://example.com", "https://example.com/"),
        ("HTTPS://Example.COM:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com/a%7Eb/caf%c3%a9", "https://example.com/a~b/café"),
        ("https://example.com/s?b=2&a=1", "https://example.com/s?a=1&b=2"),
    ])
    func urlsMatchInNormalForm(recorded: String, asked: String) async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("one.har")
        let har = #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{"request": {"method": "GET", "url": "\#(recorded)"}, "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "ok"}}}]}}"#
        try Data(har.utf8).write(to: file)
        let cassette = try Cassette(file: file, mode: .none)
        var configuration = ClientConfiguration(baseURL: URL(string: "https://unused.example")!)
        configuration.cache = nil
        let client = APIClient(configuration: configuration, transport: ReplayTransport(cassette: cassette))
        let answer = try await client.send(Request<String>(.get, asked, serializer: .string))
        #expect(answer.value == "ok")
        // A different port, path or query still misses.
        let other = asked.replacingOccurrences(of: "example.com", with: "example.com:8443")
        await #expect(throws: CourierError.self) { _ = try await client.send(Request<String>(.get, other, serializer: .string)) }
    }

    /// mitmproxy, from PyPI, in front of the sample server: what it records while the server
    /// answers replays, and a request made after the server stopped is in its file with status 0
    /// and mitmproxy's `_error`, and replays as that failure.
    @Test func mitmproxysEntryForARequestWithNoAnswerReplaysAsItsFailure() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let har = directory.url.appendingPathComponent("mitmproxy.har")
        let server = try await ImageStoreServer.instrumented(ServerConfiguration())
        let proxy: ToolServer
        do {
            proxy = try await ToolServer.start(inFrontOf: server.baseURL, recordingTo: har)
        } catch {
            await server.stop()
            throw error
        }
        var configuration = ClientConfiguration(baseURL: proxy.url)
        configuration.cache = nil
        configuration.errorPresenter = nil
        let live = APIClient(configuration: configuration, transport: URLSessionTransport())
        let sample: Data
        do {
            sample = try await live.send(Request<Data>(.get, "sample")).data
            await server.stop()
            // mitmproxy cannot reach the server: it answers 502 itself and records no response.
            _ = try? await live.send(Request<Data>(.get, "documents/gone"))
        } catch {
            await server.stop()
            await proxy.stop()
            throw error
        }
        await proxy.stop()
        var matching = CassetteMatching.methodAndURL
        matching.comparesHost = false
        let cassette = try Cassette(file: har, mode: .none, matching: matching)
        #expect(cassette.entryCount == 2, "\(proxy.output)")
        configuration.baseURL = proxy.url
        let replay = APIClient(configuration: configuration, transport: ReplayTransport(cassette: cassette))
        #expect(try await replay.send(Request<Data>(.get, "sample")).data == sample)
        let failed = await failure(replay, Request<Data>(.get, "documents/gone"))
        #expect(failed?.kind == .cannotConnect)
        #expect(failed?.message.contains("got no answer (") == true, "\(failed?.message ?? "")")
        print("HAR from mitmproxy: 1 of 1 answered entries replayed; 1 entry without an answer replayed as a failure: \(failed?.message ?? "")")
    }
}
