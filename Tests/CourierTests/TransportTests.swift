import BenchWorkloads
@testable import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Both transports end to end against the in-process server.
@Suite struct TransportTests {
    struct Sample: Decodable, Sendable {
        var id: String
        var userName: String
        var orderedPizzas: [Pizza]
        struct Pizza: Decodable, Sendable {
            var pizzaId: Int
            var name: String
        }
    }

    struct Strict: Decodable, Sendable {
        var orderedPizzas: [Pizza]
        struct Pizza: Decodable, Sendable { var toppings: [String] }
    }

    static func snakeCaseDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    @Test(arguments: TransportKind.allCases)
    func decodesTypedUntypedAndRawResponses(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) { $0.decoder = Self.snakeCaseDecoder() }
                let typed = try await client.send(Request<Sample>(.get, "sample"))
                #expect(typed.value.userName == "fulana22k")
                #expect(typed.value.orderedPizzas.map(\.pizzaId) == [5, 10])
                #expect(typed.statusCode == 200)
                #expect(typed.headers["content-type"] == "application/json")
                #expect(typed.source == .network && !typed.fromCache)
                #expect(typed.url.absoluteString == server.baseURL.absoluteString + "/sample")
                let untyped = try await client.send(Request<JSONValue>(.get, "sample")).value
                #expect(untyped["favorite_pizza"]?["name"]?.stringValue == "Catuperoni")
                #expect(untyped["ordered_pizzas"]?[1]?["number_of_ingredients"]?.intValue == 3)
                #expect(untyped["is_first_login"]?.boolValue == true)
                let raw = try await client.send(Request<Data>(.get, "sample"))
                #expect(raw.value == typed.data)
                #expect(raw.requestID > typed.requestID)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func everyMethodReachesTheServer(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                for method: HTTPMethod in [.get, .post, .put, .patch, .delete, .options] {
                    let echo = try await client.send(Request<EchoReply>(method, "echo/m")).value
                    #expect(echo.method == method.rawValue)
                }
                let head = try await client.send(Request<Data>(.head, "echo/m"))
                #expect(head.statusCode == 200 && head.data.isEmpty)
                #expect(server.requestCount("HEAD", "/echo/**") == 1)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func statusOutsideTheAcceptableRangeIsAnError(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                for code in [400, 404, 500, 503] {
                    let error = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "status/\(code)")) }
                    #expect(error?.kind == .httpStatus(code))
                    #expect(error?.statusCode == code)
                    #expect(error?.body.map { String(decoding: $0, as: UTF8.self) } == #"{"status":\#(code)}"#)
                    #expect(error?.requestID != nil)
                }
                let created = try await client.send(Request<JSONValue>(.post, "status/201"))
                #expect(created.statusCode == 201)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func decodingFailureNamesTheKeyPath(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport) { $0.decoder = Self.snakeCaseDecoder() }
                let error = await #expect(throws: CourierError.self) { try await client.send(Request<Strict>(.get, "sample")) }
                #expect(error?.kind == .decodingFailed)
                #expect(error?.message.contains("orderedPizzas[0]") == true)
                #expect(error?.message.contains("toppings") == true)
                #expect(error?.body?.isEmpty == false)
                #expect(error?.keyPath == "orderedPizzas[0].toppings")
                let binary = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "bytes/300")) }
                #expect(binary?.kind == .decodingFailed)
                #expect(error?.classification == .decodingFailed(keyPath: "orderedPizzas[0].toppings"))
                let html = await #expect(throws: CourierError.self) { try await client.send(Request<Sample>(.get, "errors/500")) }
                #expect(html?.kind == .httpStatus(500))
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func downloadProgressIsMonotonicAndEndsAtTheTotal(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                for chunked in [false, true] {
                    let reports = Locked<[TransferProgress]>([])
                    var request = Request<Data>(.get, "bytes/3000000", query: chunked ? ["chunked": true] : [:])
                    request.downloadProgress = { progress in reports.withLock { $0.append(progress) } }
                    let response = try await client.send(request)
                    #expect(response.data.count == 3_000_000)
                    #expect(response.data.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
                    let seen = reports.withLock { $0 }
                    #expect(seen.count >= 2, "chunked: \(chunked)")
                    #expect(seen.last == TransferProgress(completed: 3_000_000, total: 3_000_000))
                    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completed < $1.completed || ($0.completed == $1.completed && $1.isFinished) })
                    if !chunked { #expect(seen.allSatisfy { $0.total == 3_000_000 }) }
                }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func uploadProgressIsMonotonicAndEndsAtTheTotal(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let reports = Locked<[TransferProgress]>([])
                let bytes = PatternBytes.make(8_000_000) { UInt8(truncatingIfNeeded: $0 &* 7) }
                var request = Request<EchoReply>(.post, "echo/upload", body: .data(bytes, contentType: "application/octet-stream"))
                request.uploadProgress = { progress in reports.withLock { $0.append(progress) } }
                let echo = try await client.send(request).value
                #expect(echo.bodyData == bytes)
                let seen = reports.withLock { $0 }
                #expect(seen.filter { $0.completed < 8_000_000 }.count >= 2, "intermediate reports: \(seen.count)")
                #expect(seen.last == TransferProgress(completed: 8_000_000, total: 8_000_000))
                #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completed < $1.completed })
                #expect(seen.allSatisfy { $0.total == 8_000_000 })
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func progressRunsOnTheCallbackQueue(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let queue = DispatchQueue(label: "progress.queue")
                let key = DispatchSpecificKey<Int>()
                queue.setSpecific(key: key, value: 7)
                let onQueue = Locked<[Bool]>([])
                var request = Request<Data>(.get, "bytes/200000").callback(on: queue)
                request.downloadProgress = { _ in onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == 7) } }
                _ = try await server.client(transport).send(request)
                let seen = onQueue.withLock { $0 }
                #expect(!seen.isEmpty && seen.allSatisfy { $0 })
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func closedPortIsCannotConnect(kind: TransportKind) async throws {
        try await kind.with { transport in
            let client = APIClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
            let error = await #expect(throws: CourierError.self) { try await client.send(Request<Data>(.get, "x")) }
            #expect(error?.kind == .cannotConnect)
            #expect(error?.message.contains("127.0.0.1:1") == true)
            #expect(error?.underlyingError != nil)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func slowServerIsTimedOut(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                for observed in [false, true] {
                    var request = Request<Data>(.get, "delay/10000")
                    request.timeout = 0.3
                    if observed { request.downloadProgress = { _ in } }
                    let error = await #expect(throws: CourierError.self) { try await server.client(transport).send(request) }
                    #expect(error?.kind == .timedOut, "observed: \(observed)")
                    #expect(error?.message.contains("did not respond") == true)
                }
            }
        }
    }

    /// async-http-client's client-wide read timeout (`readTimeout`) ends a stalled request before
    /// the request's own timeout: the error names that limit, not the request's seconds (it once
    /// named the request's, which for a timeout past `Int.max` seconds crashed the app).
    @Test func theClientsReadTimeoutIsNamed() async throws {
        try await withServer { server in
            var configuration = AsyncHTTPClientTransport.Configuration()
            configuration.readTimeout = .milliseconds(300)
            let transport = AsyncHTTPClientTransport(configuration: configuration)
            var request = Request<Data>(.get, "delay/10000")
            request.timeout = 60
            let error = await #expect(throws: CourierError.self) { try await server.client(transport).send(request) }
            try await transport.shutdown()
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(error?.message.contains("read timeout (readTimeout)") == true, "\(String(describing: error))")
            #expect(error?.message.contains("60 seconds") == false, "\(String(describing: error))")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheTaskCancelsTheRequest(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let task = Task { try await client.send(Request<Data>(.get, "delay/20000")) }
                await server.waitForRequests("GET", "/delay/{milliseconds}")
                task.cancel()
                let result = await task.result
                #expect(throws: CourierError.self) { try result.get() }
                #expect((try? result.get()) == nil)
                if case .failure(let error as CourierError) = result { #expect(error.isCancelled) }
                let before = Task { () throws(CourierError) -> Response<Data> in
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await client.send(Request<Data>(.get, "sample"))
                }
                if case .failure(let error as CourierError) = await before.result { #expect(error.isCancelled) } else { Issue.record("a cancelled task's request succeeded") }
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func concurrentRequestsNeverMixUpResponses(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<64 {
                        group.addTask {
                            let echo = try await client.send(Request<EchoReply>(.post, "echo/\(index)", query: ["i": .int(index)], body: ["i": .int(index)])).value
                            #expect(echo.path == "/echo/\(index)")
                            #expect(echo.query == "i=\(index)")
                            #expect(echo.bodyText == #"{"i":\#(index)}"#)
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(server.requestCount("POST", "/echo/**") == 64)
            }
        }
    }
}
