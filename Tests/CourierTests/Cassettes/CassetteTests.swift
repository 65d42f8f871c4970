import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Record and replay: exchanges recorded against the sample server replay with it stopped, on both
/// transports; the record modes; the HAR file's fields.
@Suite struct CassetteTests {
    /// What a test compares between a live answer and its replay.
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var contentType: String?
        var body: Data
        var description: String { "\(status) \(contentType ?? "-") \(body.count) bytes" }
    }

    /// A mix of exchanges: JSON, binary, a JSON and a binary upload, an error status, a redirect.
    static func exchanges(_ client: APIClient) async throws -> [Answer] {
        var answers: [Answer] = []
        func keep(_ response: Response<Data>) {
            answers.append(Answer(status: response.statusCode, contentType: response.headers["Content-Type"], body: response.data))
        }
        keep(try await client.send(Request<Data>(.get, "sample")))
        keep(try await client.send(Request<Data>(.get, "bytes/3000")))
        let posted: RequestBody = ["name": "Ana", "tags": ["x"]]
        keep(try await client.send(Request<Data>(.post, "echo", query: ["b": 2, "a": 1], body: posted)))
        keep(try await client.send(Request<Data>(.put, "echo/binary", body: .data(Data([0, 1, 2, 255, 254]), contentType: "application/octet-stream"))))
        keep(try await client.send(Request<Data>(.get, "redirect", query: ["to": "/sample?type=xml"])))
        do {
            _ = try await client.send(Request<Data>(.get, "errors/404"))
            Issue.record("a 404 should fail")
        } catch {
            answers.append(Answer(status: error.statusCode ?? 0, contentType: error.headers?["Content-Type"], body: error.body ?? Data()))
        }
        return answers
    }

    static func replayClient(_ baseURL: URL, _ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        return APIClient(configuration: configuration, transport: transport)
    }

    @Test(arguments: TransportKind.allCases)
    func recordedExchangesReplayWithTheServerStopped(kind: TransportKind) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("cassettes/exchanges.har")
        try await kind.with { transport in
            let (baseURL, live) = try await withServer { server in
                let cassette = try Cassette(file: file)
                let answers = try await Self.exchanges(server.client(RecordingTransport(wrapping: transport, cassette: cassette)))
                #expect(cassette.entryCount == 7, "six requests and the redirect's second hop")
                try cassette.flush()
                return (server.baseURL, answers)
            }
            #expect(FileManager.default.fileExists(atPath: file.path))
            // The server is stopped: what is not replayed fails to connect.
            let again = try Cassette(file: file)
            let replayed = try await Self.exchanges(Self.replayClient(baseURL, RecordingTransport(wrapping: transport, cassette: again)))
            #expect(replayed == live)
            #expect(again.unusedEntryCount == 0)
            let replayOnly = try Cassette(file: file, mode: .none)
            #expect(try await Self.exchanges(Self.replayClient(baseURL, ReplayTransport(cassette: replayOnly))) == live)
        }
    }

    /// A stream is recorded as it arrives: the reader has each event at once (an endless stream is
    /// never gathered first), the cassette gets what arrived when the reader stops, and a replay
    /// gives the same events.
    @Test(arguments: TransportKind.allCases)
    func anEventStreamIsRecordedAsItArrivesAndReplaysAsEvents(kind: TransportKind) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("events.har")
        let request = Request<Data>(.get, "events", query: ["count": 1_000_000, "interval": 10])
        try await kind.with { transport in
            let (baseURL, live) = try await withServer { server in
                let cassette = try Cassette(file: file)
                let client = server.client(RecordingTransport(wrapping: transport, cassette: cassette))
                let stream = try await client.stream(request)
                var events: [ServerSentEvent] = []
                for try await event in stream.events {
                    events.append(event)
                    if events.count == 3 { break }
                }
                stream.cancel()
                #expect(cassette.entryCount == 1, "what arrived is recorded when the reader stops")
                try cassette.flush()
                return (server.baseURL, events)
            }
            let replay = Self.replayClient(baseURL, ReplayTransport(cassette: try Cassette(file: file, mode: .none)))
            var replayed: [ServerSentEvent] = []
            for try await event in try await replay.stream(request).events { replayed.append(event) }
            #expect(replayed.count >= 3)
            #expect(Array(replayed.prefix(3)) == live)
        }
    }

    @Test func theFileIsHAR12WithEveryRequiredFieldSortedAndPrettyPrinted() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("fields.har")
        try await withServer { server in
            let cassette = try Cassette(file: file)
            _ = try await Self.exchanges(server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette)))
            try cassette.flush()
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("{\n"), "pretty-printed")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let log = try #require(document["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "Courier")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 7)
        for entry in entries {
            for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] { #expect(entry[key] != nil, "entry.\(key)") }
            let request = try #require(entry["request"] as? [String: Any])
            for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
                #expect(request[key] != nil, "request.\(key)")
            }
            let response = try #require(entry["response"] as? [String: Any])
            for key in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"] {
                #expect(response[key] != nil, "response.\(key)")
            }
            let timings = try #require(entry["timings"] as? [String: Any])
            for key in ["send", "wait", "receive"] { #expect(timings[key] != nil, "timings.\(key)") }
        }
        // Binary bodies: base64 in content.encoding; a binary request body in `_base64`.
        let binary = try #require(entries[1]["response"] as? [String: Any])
        let content = try #require(binary["content"] as? [String: Any])
        #expect(content["encoding"] as? String == "base64")
        #expect(Data(base64Encoded: content["text"] as? String ?? "")?.count == 3000)
        let upload = try #require((entries[3]["request"] as? [String: Any])?["postData"] as? [String: Any])
        #expect(Data(base64Encoded: upload["_base64"] as? String ?? "") == Data([0, 1, 2, 255, 254]))
        #expect(upload["text"] as? String == "")
        let json = try #require((entries[2]["request"] as? [String: Any])?["postData"] as? [String: Any])
        #expect((json["text"] as? String)?.contains("\"name\"") == true)
        let query = try #require((entries[2]["request"] as? [String: Any])?["queryString"] as? [[String: String]])
        #expect(Set(query.map { $0["name"] ?? "" }) == ["a", "b"])
        let redirect = try #require(entries[4]["response"] as? [String: Any])
        #expect(redirect["status"] as? Int == 302 && redirect["redirectURL"] as? String == "/sample?type=xml")
        // Keys sorted at every level, laid out as the package's writer lays out any tree: the
        // file parsed and written again whole, keys sorted, gives the same bytes.
        var rewritten = JSONWriter(prettyPrinted: true)
        try rewritten.write(Self.parameter(try JSONValue.parse(Data(text.utf8))))
        #expect(String(decoding: rewritten.bytes, as: UTF8.self) + "\n" == text)
    }

    /// A parsed JSON value as the writer's input.
    static func parameter(_ value: JSONValue) -> Parameter {
        switch value {
        case .null: .null
        case .bool(let bool): .bool(bool)
        case .int(let int): .int(int)
        case .double(let double): .double(double)
        case .string(let string): .string(string)
        case .array(let values): .array(values.map(parameter))
        case .object(let members): .object(members.mapValues(parameter))
        }
    }

    @Test func recordingAppendsTheSameBytesAWholeWriteGives() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("append.har")
        try await withServer { server in
            let cassette = try Cassette(file: file)
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette))
            // Written one by one: the first whole, the others appended.
            for index in 0..<3 {
                _ = try await client.send(Request<Data>(.get, "echo", query: ["n": .int(index)]))
                try cassette.flush()
            }
            let appended = try String(contentsOf: file, encoding: .utf8)
            // A cassette opened from the file writes it whole at its first write.
            let reopened = try Cassette(file: file, mode: .newEpisodes)
            let more = server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: reopened))
            _ = try await more.send(Request<Data>(.get, "echo", query: ["n": 3]))
            try reopened.flush()
            let whole = try String(contentsOf: file, encoding: .utf8)
            let tail = "\n    ],\n    \"version\" : \"1.2\"\n  }\n}\n"
            #expect(appended.hasSuffix(tail) && whole.hasSuffix(tail))
            #expect(whole.hasPrefix(String(appended.dropLast(tail.count)) + ",\n"), "the first three entries, byte for byte")
            #expect(try Cassette(file: file).entryCount == 4)
        }
    }

    @Test func recordModes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("modes.har")
        // none: a missing cassette fails to open.
        let missing = #expect(throws: CourierError.self) { try Cassette(file: file, mode: .none) }
        #expect(missing?.kind == .cassetteInvalid && missing?.message.contains("mode once or all") == true)
        try await withServer { server in
            let transport = URLSessionTransport()
            func client(_ cassette: Cassette) -> APIClient { server.client(RecordingTransport(wrapping: transport, cassette: cassette)) }
            // once, missing: records everything, identical requests included.
            let first = try Cassette(file: file)
            _ = try await client(first).send(Request<Data>(.get, "echo"))
            _ = try await client(first).send(Request<Data>(.get, "echo"))
            #expect(server.requestCount("GET", "/echo") == 2 && first.entryCount == 2)
            // once, present: replays, and fails on anything new without sending it.
            let second = try Cassette(file: file)
            _ = try await client(second).send(Request<Data>(.get, "echo"))
            let new = await #expect(throws: CourierError.self) { try await client(second).send(Request<Data>(.get, "sample")) }
            #expect(new?.kind == .cassetteMiss)
            #expect(server.requestCount("GET", "/echo") == 2 && server.requestCount("GET", "/sample") == 0)
            // newEpisodes: replays what is there, sends and adds what is not.
            let third = try Cassette(file: file, mode: .newEpisodes)
            _ = try await client(third).send(Request<Data>(.get, "echo"))
            _ = try await client(third).send(Request<Data>(.get, "sample"))
            #expect(server.requestCount("GET", "/echo") == 2 && server.requestCount("GET", "/sample") == 1)
            #expect(try Cassette(file: file).entryCount == 3)
            // none: replays, never sends.
            let fourth = try Cassette(file: file, mode: .none)
            _ = try await client(fourth).send(Request<Data>(.get, "sample"))
            await #expect(throws: CourierError.self) { try await client(fourth).send(Request<Data>(.get, "bytes/10")) }
            #expect(server.requestCount("GET", "/bytes/{count}") == 0)
            // all: sends everything and rewrites the file.
            let fifth = try Cassette(file: file, mode: .all)
            _ = try await client(fifth).send(Request<Data>(.get, "bytes/10"))
            #expect(server.requestCount("GET", "/bytes/{count}") == 1)
            let rewritten = try Cassette(file: file)
            #expect(rewritten.entryCount == 1)
        }
    }

    @Test func aFileThatIsNotHARFailsWithItsPathAndTheProblem() throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("broken.har")
        try Data(#"{"log": {"entries": [{"request": {"url": "http://x/"}}]}}"#.utf8).write(to: file)
        let error = #expect(throws: CourierError.self) { try Cassette(file: file) }
        #expect(error?.kind == .cassetteInvalid)
        #expect(error?.message.contains(file.path) == true)
        #expect(error?.message.contains(#"the key "method" is missing at log.entries[0].request"#) == true, "\(error?.message ?? "")")
        try Data("<html>".utf8).write(to: file)
        #expect(throws: CourierError.self) { try Cassette(file: file) }
    }

    @Test func badSettingsAreRefusedWhenTheCassetteOpens() {
        var redaction = CassetteRedaction.standard
        redaction.placeholder = "[hidden]\r\n"
        let placeholder = #expect(throws: CourierError.self) { try Cassette(file: URL(fileURLWithPath: "/tmp/x.har"), redaction: redaction) }
        #expect(placeholder?.kind == .cassetteInvalid && placeholder?.message.contains("placeholder") == true)
        let remote = #expect(throws: CourierError.self) { try Cassette(file: URL(string: "https://example.com/x.har")!) }
        #expect(remote?.kind == .cassetteInvalid && remote?.message.contains("not a file URL") == true)
    }

    @Test func theTransportsOwnSendRecordsAndReplays() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("send.har")
        let url = try await withServer { server in
            let url = server.baseURL.appendingPathComponent("sample")
            let live = try await RecordingTransport(wrapping: URLSessionTransport(), cassette: try Cassette(file: file)).send(TransportRequest(url: url), observer: .none)
            #expect(live.statusCode == 200 && server.requestCount("GET", "/sample") == 1)
            return url
        }
        let replayed = try await RecordingTransport(wrapping: URLSessionTransport(), cassette: try Cassette(file: file)).send(TransportRequest(url: url), observer: .none)
        #expect(replayed.statusCode == 200 && !replayed.body.isEmpty)
    }

    @Test func aTransportWithNoCassetteSendsNothing() async throws {
        try await withServer { server in
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport()))
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "echo")) }
            #expect(error?.kind == .cassetteInvalid && error?.message.contains("cassette.use") == true)
            #expect(server.requestCount("GET", "/echo") == 0)
        }
    }
}
