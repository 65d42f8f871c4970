import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Cassettes and other tools' HAR files, both ways: a HAR mitmproxy records in front of the sample
/// server replays in Courier; a cassette Courier records is read by mitmproxy's HAR loader and by
/// haralyzer. The tools come from PyPI, installed on first use (`TestTools`).
@Suite struct CassetteInteropTests {
    /// What a test compares: status, content type and body of each answer.
    static func answers(_ client: APIClient) async throws -> [CassetteTests.Answer] {
        var answers: [CassetteTests.Answer] = []
        for request in [
            Request<Data>(.get, "sample"), Request<Data>(.get, "bytes/5000"), Request<Data>(.get, "sample", query: ["type": "xml"]),
            Request<Data>(.post, "echo", query: ["b": 2, "a": 1], body: ["name": "Ana"]),
        ] {
            let response = try await client.send(request)
            answers.append(CassetteTests.Answer(status: response.statusCode, contentType: response.headers["Content-Type"], body: response.data))
        }
        return answers
    }

    @Test func aHARRecordedByMitmproxyReplaysOnBothTransports() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let har = directory.url.appendingPathComponent("mitmproxy.har")
        var live: [CassetteTests.Answer] = []
        var proxyURL = URL(fileURLWithPath: "/")
        try await withServer { server in
            let proxy = try await ToolServer.start(inFrontOf: server.baseURL, recordingTo: har)
            proxyURL = proxy.url
            do {
                live = try await Self.answers(CassetteReplayTests.client(proxy.url, URLSessionTransport()))
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
            #expect(FileManager.default.fileExists(atPath: har.path), "\(proxy.output)")
        }
        #expect(live.count == 4)
        // mitmproxy records the upstream's address: hosts are not compared.
        var matching = CassetteMatching.methodAndURL
        matching.comparesHost = false
        for kind in TransportKind.allCases {
            try await kind.with { transport in
                let cassette = try Cassette(file: har, mode: .none, matching: matching)
                #expect(cassette.entryCount == 4)
                let replayed = try await Self.answers(CassetteReplayTests.client(proxyURL, RecordingTransport(wrapping: transport, cassette: cassette)))
                #expect(replayed == live, "\(kind)")
                #expect(cassette.unusedEntryCount == 0)
            }
        }
    }

    /// Reads a HAR file with mitmproxy's loader and with haralyzer, printing what each saw as JSON.
    static let readers = #"""
        import base64, json, sys
        from haralyzer import HarParser
        from mitmproxy.io.har import request_to_flow
        with open(sys.argv[1]) as f:
            har = json.load(f)
        seen = {"mitmproxy": [], "haralyzer": []}
        for entry in har["log"]["entries"]:
            flow = request_to_flow(entry)
            seen["mitmproxy"].append({"method": flow.request.method, "url": flow.request.pretty_url,
                "status": flow.response.status_code, "body": base64.b64encode(flow.response.content).decode()})
        for page in HarParser(har).pages:
            for entry in page.entries:
                text = entry.response.text or ""
                body = base64.b64decode(text) if entry.response.textEncoding == "base64" else text.encode()
                seen["haralyzer"].append({"method": entry.request.method, "url": entry.request.url,
                    "status": entry.response.status, "body": base64.b64encode(body).decode(),
                    "mimeType": entry.response.mimeType})
        print(json.dumps(seen))
        """#

    struct Seen: Decodable, Equatable {
        var method: String
        var url: String
        var status: Int
        var body: String
    }

    @Test func aCourierCassetteIsReadByMitmproxyAndHaralyzer() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("courier.har")
        var expected: [Seen] = []
        try await withServer { server in
            let cassette = try Cassette(file: file)
            let answers = try await Self.answers(CassetteReplayTests.client(server.baseURL, RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette)))
            let urls = ["sample", "bytes/5000", "sample?type=xml", "echo?a=1&b=2"].map { server.baseURL.absoluteString + "/" + $0 }
            expected = zip(urls, answers).map { url, answer in
                Seen(method: url.contains("echo") ? "POST" : "GET", url: url, status: answer.status, body: answer.body.base64EncodedString())
            }
            try cassette.flush()
        }
        let script = directory.url.appendingPathComponent("readers.py")
        try Self.readers.write(to: script, atomically: true, encoding: .utf8)
        let printed = try await TestTools.runPython([script.path, file.path])
        let seen = try JSONDecoder().decode([String: [Seen]].self, from: printed)
        #expect(seen["mitmproxy"] == expected)
        #expect(seen["haralyzer"] == expected)
    }
}
