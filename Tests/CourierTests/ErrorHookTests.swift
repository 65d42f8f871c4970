import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Logging
import Testing

/// The delegate's error hooks, error presentation, and the serializers' fallbacks.
@Suite struct ErrorHookTests {
    /// Turns `{"status": 299}`-style bodies into errors and records every failure.
    final class Watcher: APIClientDelegate {
        struct APIError: Error, LocalizedError {
            let code: Int
            var errorDescription: String? { "API error \(code)" }
        }

        let failures = Locked<[(ErrorClassification, String?, ValidationErrors?)]>([])

        func client(_ client: APIClient, errorFor response: TransportResponse, request: TransportRequest) async -> (any Error)? {
            guard response.statusCode == 200, let value = response.bodyValue.json?["error_code"] else { return nil }
            guard let code = value.intValue ?? value.stringValue.flatMap({ Int($0) }) else { return nil }
            return APIError(code: code)
        }

        func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async {
            failures.withLock { $0.append((error.classification, request?.url.path, error.validationErrors)) }
        }
    }

    final class Recorder: Sendable {
        let shown = Locked<[String]>([])
        var presenter: ErrorPresenter { ErrorPresenter { [shown] error, _ in shown.withLock { $0.append(error.userMessage) } } }
    }

    @Test func aHookTurnsA200IntoAnError() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.delegate = Watcher() }
            let fine = try await client.send(Request<JSONValue>(.post, "echo", body: ["x": 1]))
            #expect(fine.statusCode == 200)
            let request = Request<JSONValue>(.get, "errors/200", query: ["key": "error_code", "message": "7"])
            let rejected = await #expect(throws: CourierError.self) { try await client.send(request) }
            #expect(rejected?.kind == .rejected)
            #expect(rejected?.statusCode == 200)
            #expect((rejected?.underlyingError as? Watcher.APIError)?.code == 7)
            #expect(rejected?.message.contains("API error 7") == true)
        }
    }

    @Test func everyFailureReachesTheObserverClassified() async throws {
        try await withServer { server in
            let watcher = Watcher()
            let client = server.client(URLSessionTransport()) { $0.delegate = watcher }
            _ = try? await client.send(Request<Data>(.get, "status/401"))
            _ = try? await client.send(Request<Data>(.get, "errors/422"))
            _ = try? await client.send(Request<Data>(.get, "ftp://nowhere/x"))
            _ = try await client.send(Request<Data>(.get, "sample"))
            let seen = watcher.failures.withLock { $0 }
            #expect(seen.count == 3)
            #expect(seen[0].0 == .unauthorized && seen[0].1 == "/status/401")
            let validation = try #require(seen.dropFirst().first)
            #expect(validation.0.name == "validationFailed" && validation.2?.fields["email"]?.count == 2)
            #expect(seen[2].0 == .invalidRequest && seen[2].1 == nil)
        }
    }

    @Test func presenterShowsFailuresUnlessSuppressedOrCancelled() async throws {
        try await withServer { server in
            let recorder = Recorder()
            let client = server.client(URLSessionTransport()) { $0.errorPresenter = recorder.presenter }
            _ = try? await client.send(Request<Data>(.get, "errors/400", query: ["message": "Card declined"]))
            var quiet = Request<Data>(.get, "status/500")
            quiet.suppressErrorAlert = true
            _ = try? await client.send(quiet)
            let task = Task { try await client.send(Request<Data>(.get, "delay/20000")) }
            await server.waitForRequests("GET", "/delay/{milliseconds}")
            task.cancel()
            _ = await task.result
            #expect(recorder.shown.withLock { $0 } == ["Card declined"])
        }
    }

    @Test func htmlErrorPageArrivesAsTextForUntypedRequests() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.acceptableStatusCodes = 200..<600 }
            let untyped = try await client.send(Request<JSONValue>(.get, "errors/500"))
            #expect(untyped.value.stringValue?.hasPrefix("<!DOCTYPE html>") == true)
            let body = try await client.send(Request(.get, "errors/500", serializer: .untyped)).value
            #expect(body.text?.contains("Internal Server Error") == true)
            let strict = server.client(URLSessionTransport())
            let error = await #expect(throws: CourierError.self) { try await strict.send(Request<JSONValue>(.get, "errors/500")) }
            #expect(error?.bodyValue?.text?.contains("<h1>Internal Server Error</h1>") == true)
            #expect(error?.userMessage == "The server had a problem. Please try again later.")
        }
    }

    @Test func xmlResponsesParseIntoATree() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let root = try await client.send(Request(.get, "sample", query: ["type": "xml"], serializer: .xml)).value
            #expect(root.name == "user")
            #expect(root["user_name"]?.text == "fulana22k")
            #expect(root["favorite_pizza"]?["name"]?.text == "Catuperoni")
            #expect(root["ordered_pizzas"]?.all("item").map { $0["pizza_id"]?.text } == ["5", "10"])
            let sniffed = try await client.send(Request(.get, "sample", query: ["type": "xml"], serializer: .untyped)).value
            #expect(sniffed.xml == root)
            let json = try await client.send(Request(.get, "sample", serializer: .untyped)).value
            #expect(json.json?["user_name"]?.stringValue == "fulana22k")
        }
    }

    @Test func bodySniffingWithoutAContentType() throws {
        #expect(ResponseBodyValue.read(Data(#" {"a":1}"#.utf8), contentType: nil).json?["a"]?.intValue == 1)
        #expect(ResponseBodyValue.read(Data("<a><b>x</b></a>".utf8), contentType: "application/octet-stream").xml?["b"]?.text == "x")
        #expect(ResponseBodyValue.read(Data("<!DOCTYPE html><html></html>".utf8), contentType: nil).text != nil)
        #expect(ResponseBodyValue.read(Data("{broken".utf8), contentType: "application/json").text == "{broken")
        #expect(ResponseBodyValue.read(Data([0xFF, 0x00, 0xFE]), contentType: nil) == .binary(Data([0xFF, 0x00, 0xFE])))
        #expect(throws: XMLParseError.self) { try XMLTreeParser.parse(Data("<a><b></a>".utf8)) }
    }
}
