import AsyncHTTPClient
import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import CourierOpenAPI
import Foundation
import ImageStoreAPI
import ImageStoreServer
import ImageStoreTesting
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// `courier-bench openapi`: the client swift-openapi-generator makes from the sample server's
/// document, through ``APIClientTransport`` against through swift-openapi-async-http-client's
/// transport, both on one async-http-client `HTTPClient`.
///
/// - `openapi.get.c1`, `.c32`: `getImage` (one image's JSON), Courier with no cache and no
///   sharing, so both sides do the same work on the wire (ratio Courier/plain).
/// - `openapi.list.both`: `listImages` of a list that does not change, Courier with cache `.both`
///   (revalidated: the server answers 304, the stored body is decoded) against plain; with the
///   requests and the 304s the server saw for each side.
struct OpenAPIBenchmark {
    let options: BenchOptions

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        let directory = try scratchDirectory("openapi")
        defer { try? FileManager.default.removeItem(at: directory) }
        var transportConfiguration = CourierAsyncHTTPClient.AsyncHTTPClientTransport.Configuration()
        transportConfiguration.maximumConnectionsPerHost = 32
        let courierTransport = CourierAsyncHTTPClient.AsyncHTTPClientTransport(configuration: transportConfiguration)
        let plainTransport = OpenAPIAsyncHTTPClient.AsyncHTTPClientTransport(configuration: .init(client: courierTransport.client))
        let plain = Client(serverURL: server.baseURL, transport: plainTransport)

        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.deduplicatesRequests = false
        configuration.errorPresenter = nil
        let courier = Client(serverURL: server.baseURL, transport: APIClientTransport(client: APIClient(configuration: configuration, transport: courierTransport)))

        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 512))
        let image = try await plain.createImage(body: .multipartForm([.image(.init(payload: .init(body: HTTPBody(png)), filename: "bench.png"))])).created.body.json
        @Sendable func get(_ client: Client) async throws {
            guard try await client.getImage(path: .init(id: image.id)).ok.body.json.id == image.id else { throw BenchError("openapi: wrong image") }
        }
        for concurrency in [1, 32] {
            let name = "openapi.get.c\(concurrency)"
            guard options.selects(name) else { continue }
            let pair = PairedMeasurement(name: name, count: options.scaled(concurrency == 1 ? 1000 : 3000, minimum: 50), concurrency: concurrency, rounds: options.rounds)
            PairedMeasurement.report(name, try await pair.run(courier: { try await get(courier) }, raw: { try await get(plain) }))
        }

        if options.selects("openapi.list.both") {
            let cache = ResponseCache(directory: directory.appendingPathComponent("cache"))
            await cache.loaded()
            var cached = configuration
            cached.cache = cache
            let listing = Client(
                serverURL: server.baseURL,
                transport: APIClientTransport(client: APIClient(configuration: cached, transport: courierTransport), defaults: OperationSettings(cacheOption: .both)))
            @Sendable func list(_ client: Client) async throws {
                guard try await client.listImages().ok.body.json.images.count == 1 else { throw BenchError("openapi: wrong list") }
            }
            let count = options.scaled(1000, minimum: 50)
            let pair = PairedMeasurement(name: "openapi.list.both", count: count, concurrency: 1, rounds: options.rounds)
            server.resetCounters()
            let result = try await pair.run(courier: { try await list(listing) }, raw: { try await list(plain) })
            PairedMeasurement.report("openapi.list.both", result)
            print("openapi.list.both server requests=\(server.requestCount("GET", "/images")) notModified=\(server.notModifiedCount("GET", "/images")) (both sides, warm-up included)")
        }
        try await courierTransport.shutdown()
        await server.stop()
    }
}
