import Courier
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// How replayed requests find their recorded answers, and what a miss says.
@Suite struct CassetteMatchingTests {
    /// Records `body` against a fresh server into a new cassette file, then runs `replay` with the
    /// server stopped: a client whose requests can only be answered from the file.
    static func recordThenReplay(
        matching: CassetteMatching = .methodAndURL, redaction: CassetteRedaction = .standard,
        record: (APIClient) async throws -> Void, replay: (APIClient, Cassette) async throws -> Void
    ) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("cassette.har")
        let baseURL = try await withServer { server in
            let cassette = try Cassette(file: file, matching: matching, redaction: redaction)
            try await record(server.client(RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette)))
            return server.baseURL
        }
        let cassette = try Cassette(file: file, mode: .none, matching: matching, redaction: redaction)
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        try await replay(APIClient(configuration: configuration, transport: ReplayTransport(cassette: cassette)), cassette)
    }

    static func echo(_ client: APIClient, _ request: Request<EchoReply>) async throws -> EchoReply {
        try await client.send(request).value
    }

    @Test func identicalRequestsAreAnsweredInRecordedOrderThenFail() async throws {
        try await Self.recordThenReplay { client in
            try await client.putDocument("counter", "one")
            _ = try await client.send(Request<String>(.get, "documents/counter", serializer: .string))
            try await client.putDocument("counter", "two")
            _ = try await client.send(Request<String>(.get, "documents/counter", serializer: .string))
        } replay: { client, cassette in
            let read = Request<String>(.get, "documents/counter", serializer: .string)
            try await client.putDocument("counter", "one")
            #expect(try await client.send(read).value == "one")
            try await client.putDocument("counter", "two")
            #expect(try await client.send(read).value == "two")
            let third = await #expect(throws: CourierError.self) { try await client.send(read) }
            #expect(third?.kind == .cassetteMiss)
            #expect(third?.message.contains("its 2 recorded answers were already used") == true, "\(third?.message ?? "")")
            #expect(cassette.unusedEntryCount == 0)
        }
    }

    @Test func repeatsLastAnswerWhenAsked() async throws {
        var matching = CassetteMatching.methodAndURL
        matching.repeatsLastAnswer = true
        try await Self.recordThenReplay(matching: matching) { client in
            _ = try await client.send(Request<Data>(.get, "sample"))
        } replay: { client, _ in
            for _ in 0..<3 {
                let response = try await client.send(Request<Data>(.get, "sample"))
                #expect(response.statusCode == 200)
            }
        }
    }

    @Test func queryOrderDoesNotMatterButValuesDo() async throws {
        try await Self.recordThenReplay { client in
            _ = try await Self.echo(client, Request<EchoReply>(.get, "echo", query: ["a": 1, "b": "x y"]))
        } replay: { client, _ in
            var reordered = URLComponents(url: client.configuration.baseURL.appendingPathComponent("echo"), resolvingAgainstBaseURL: false)!
            reordered.percentEncodedQuery = "b=x%20y&a=1"
            let reply = try await client.send(Request<EchoReply>(.get, reordered.url!.absoluteString)).value
            #expect(reply.query == "a=1&b=x%20y", "the recorded answer")
            let other = await #expect(throws: CourierError.self) { try await Self.echo(client, Request<EchoReply>(.get, "echo", query: ["a": 2, "b": "x y"])) }
            #expect(other?.kind == .cassetteMiss)
            let message = other?.message ?? ""
            #expect(message.contains("closest recorded entry, #1 GET"), "\(message)")
            #expect(message.contains("query: recorded a=1 is not asked; query: asked a=2 was not recorded"), "\(message)")
            #expect(message.contains("Nothing was sent"))
        }
    }

    @Test func bodiesMatchAsJSONWhenAsked() async throws {
        var matching = CassetteMatching.methodAndURL
        matching.comparesBody = true
        try await Self.recordThenReplay(matching: matching) { client in
            _ = try await Self.echo(client, Request<EchoReply>(.post, "echo", body: .data(Data(#"{"a":1,"b":[true,null]}"#.utf8), contentType: "application/json")))
            _ = try await Self.echo(client, Request<EchoReply>(.post, "echo", body: .data(Data(#"{"a":2}"#.utf8), contentType: "application/json")))
        } replay: { client, _ in
            // Asked in the other order, with other spacing and key order: each gets its own answer.
            let second = try await Self.echo(client, Request<EchoReply>(.post, "echo", body: .data(Data(#"{ "a" : 2 }"#.utf8), contentType: "application/json")))
            #expect(second.bodyText == #"{"a":2}"#)
            let first = try await Self.echo(client, Request<EchoReply>(.post, "echo", body: .data(Data(#"{"b":[true,null],"a":1}"#.utf8), contentType: "application/json")))
            #expect(first.bodyText == #"{"a":1,"b":[true,null]}"#)
            let miss = await #expect(throws: CourierError.self) {
                try await Self.echo(client, Request<EchoReply>(.post, "echo", body: .data(Data(#"{"a":3}"#.utf8), contentType: "application/json")))
            }
            #expect(miss?.message.contains(#"differs in body: recorded 23 bytes, "{"a":1,"b":[true,null]}", asked 7 bytes, "{"a":3}""#) == true, "\(miss?.message ?? "")")
        }
    }

    @Test func headersAndACustomRuleMatchWhenAsked() async throws {
        var matching = CassetteMatching.methodAndURL
        matching.headers = ["Accept-Language"]
        matching.custom = { request, recorded in request.headers["X-Variant"] == recorded.headers["X-Variant"] }
        try await Self.recordThenReplay(matching: matching) { client in
            _ = try await Self.echo(client, Request<EchoReply>(.get, "echo", headers: ["Accept-Language": "pt-BR", "X-Variant": "a"]))
            _ = try await Self.echo(client, Request<EchoReply>(.get, "echo", headers: ["Accept-Language": "ru", "X-Variant": "a"]))
        } replay: { client, _ in
            let russian = try await Self.echo(client, Request<EchoReply>(.get, "echo", headers: ["accept-language": "ru", "X-Variant": "a"]))
            #expect(russian.header("Accept-Language") == "ru")
            let variant = await #expect(throws: CourierError.self) {
                try await Self.echo(client, Request<EchoReply>(.get, "echo", headers: ["Accept-Language": "pt-BR", "X-Variant": "b"]))
            }
            #expect(variant?.message.contains("the custom matching rule said no") == true)
            let language = await #expect(throws: CourierError.self) {
                try await Self.echo(client, Request<EchoReply>(.get, "echo", headers: ["Accept-Language": "en", "X-Variant": "a"]))
            }
            #expect(language?.message.contains("header Accept-Language: recorded pt-BR, asked en") == true, "\(language?.message ?? "")")
        }
    }

    @Test func anotherHostMatchesWhenHostsAreNotCompared() async throws {
        var matching = CassetteMatching.methodAndURL
        matching.comparesHost = false
        try await Self.recordThenReplay(matching: matching) { client in
            _ = try await client.send(Request<Data>(.get, "sample"))
        } replay: { _, cassette in
            let elsewhere = APIClient(baseURL: URL(string: "http://127.0.0.1:9")!, transport: ReplayTransport(cassette: cassette))
            let response = try await elsewhere.send(Request<Data>(.get, "sample"))
            #expect(response.statusCode == 200)
        }
        try await Self.recordThenReplay { client in
            _ = try await client.send(Request<Data>(.get, "sample"))
        } replay: { _, cassette in
            let elsewhere = APIClient(baseURL: URL(string: "http://127.0.0.1:9")!, transport: ReplayTransport(cassette: cassette))
            let miss = await #expect(throws: CourierError.self) { try await elsewhere.send(Request<Data>(.get, "sample")) }
            #expect(miss?.message.contains("host: recorded http://127.0.0.1:") == true && miss?.message.contains("asked http://127.0.0.1:9") == true)
        }
    }

    @Test func parallelTasksEachUseTheirOwnCassette() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            // One transport and one client shared by every task; each task records into its own file.
            let client = server.client(RecordingTransport(wrapping: URLSessionTransport())) { $0.deduplicatesRequests = false }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let cassette = try Cassette(file: directory.url.appendingPathComponent("task-\(index).har"))
                        try await cassette.use {
                            for step in 0..<3 {
                                _ = try await client.send(Request<Data>(.get, "echo", query: ["task": .int(index), "step": .int(step)]))
                            }
                            // A redirect's second hop is started from the first one's completion.
                            _ = try await client.send(Request<Data>(.get, "redirect", query: ["to": .string("/echo?task=\(index)&step=moved")]))
                        }
                    }
                }
                try await group.waitForAll()
            }
            for index in 0..<8 {
                let cassette = try Cassette(file: directory.url.appendingPathComponent("task-\(index).har"), mode: .none)
                #expect(cassette.entryCount == 5)
                try await cassette.use {
                    let replay = APIClient(configuration: client.configuration, transport: ReplayTransport())
                    for step in 0..<3 {
                        _ = try await replay.send(Request<Data>(.get, "echo", query: ["task": .int(index), "step": .int(step)]))
                    }
                    let moved = try await replay.send(Request<EchoReply>(.get, "redirect", query: ["to": .string("/echo?task=\(index)&step=moved")]))
                    #expect(moved.value.query == "task=\(index)&step=moved")
                    let other = await #expect(throws: CourierError.self) {
                        try await replay.send(Request<Data>(.get, "echo", query: ["task": .int((index + 1) % 8), "step": 0]))
                    }
                    #expect(other?.kind == .cassetteMiss)
                }
            }
        }
    }
}
