import ArgumentParser
import Courier
import CourierAsyncHTTPClient
import CourierPostgres
import Foundation
import Logging
import PostgresNIO

/// `courier-test-helper cache-tests-bridge`: answers the HTTP caching tests' `fetch` calls with an
/// ``APIClient`` (`Scripts/cache-tests.mjs` starts it). Each line of standard input is one request
/// as JSON (`id`, `url`, `method`, `headers` as name and value pairs, `body`, the Fetch `cache` and
/// `redirect` modes); each line of standard output is its answer (`id`, `status`, `headers`, `body`
/// in base64), or `error` when Courier failed. Requests run concurrently; standard input reaching
/// its end ends the process.
struct CacheTestsBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache-tests-bridge", abstract: "Answer the HTTP caching tests' fetch calls with Courier (JSON lines).")

    @Option(help: "The transport: urlsession or ahc.")
    var transport = "urlsession"

    @Option(help: "The freshness rule: http, shared-http (a shared cache's rules), shared-postgres (those rules on a PostgresCacheStore at 127.0.0.1:$COURIER_CACHE_TESTS_POSTGRES_PORT), server-max-age or never.")
    var freshness = "http"

    @Option(help: "The origin the tests' URLs point at.")
    var origin: String

    struct Message: Decodable {
        var id: Int
        var url: String
        var method: String?
        var headers: [[String]]?
        var body: String?
        var cache: String?
        var redirect: String?
    }

    struct Answer: Encodable {
        var id: Int
        var status: Int?
        var headers: [[String]]?
        var body: String?
        var source: String?
        var error: String?
    }

    func run() async throws {
        guard let originURL = URL(string: origin) else { throw ValidationError("--origin is not a URL: \(origin)") }
        let rule: CacheFreshness
        switch freshness {
        case "http": rule = .http
        case "shared-http": rule = .sharedHTTP
        case "shared-postgres": rule = .http  // a client on a shared store applies the shared rules
        case "server-max-age": rule = .serverMaxAge
        case "never": rule = .never
        default: throw ValidationError("--freshness must be http, shared-http, shared-postgres, server-max-age or never, not \(freshness)")
        }
        let wire: any HTTPTransport
        switch transport {
        case "urlsession": wire = URLSessionTransport(configuration: .ephemeral)
        case "ahc": wire = AsyncHTTPClientTransport()
        default: throw ValidationError("--transport must be urlsession or ahc, not \(transport)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache: ResponseCache
        var database: PostgresClient?
        if freshness == "shared-postgres" {
            guard let port = ProcessInfo.processInfo.environment["COURIER_CACHE_TESTS_POSTGRES_PORT"].flatMap(Int.init) else {
                throw ValidationError("shared-postgres needs COURIER_CACHE_TESTS_POSTGRES_PORT: a PostgreSQL server on 127.0.0.1, user postgres")
            }
            var logger = Logger(label: "cache-tests-bridge")
            logger.logLevel = .error
            let client = PostgresClient(
                configuration: .init(host: "127.0.0.1", port: port, username: "postgres", password: nil, database: "postgres", tls: .disable),
                backgroundLogger: logger)
            database = client
            var storeConfiguration = PostgresCacheStore.Configuration()
            storeConfiguration.table = "cache_tests_\(transport)"
            storeConfiguration.timeout = .seconds(2)
            cache = ResponseCache(store: try PostgresCacheStore(client: client, configuration: storeConfiguration, logger: logger), memoryCapacity: 16 << 20)
        } else {
            cache = ResponseCache(directory: directory, memoryCapacity: 16 << 20)
        }
        let running = database.map { client in Task { await client.run() } }
        defer { running?.cancel() }
        func client(redirects: RedirectPolicy) -> APIClient {
            var configuration = ClientConfiguration(baseURL: originURL)
            configuration.cache = cache
            configuration.cacheOption = .both
            configuration.cacheFreshness = rule
            configuration.acceptableStatusCodes = 100..<600
            configuration.errorPresenter = nil
            configuration.deduplicatesRequests = false
            configuration.timeout = 10
            configuration.redirects = redirects
            return APIClient(configuration: configuration, transport: wire)
        }
        let following = client(redirects: RedirectPolicy())
        let manual = client(redirects: .none)

        let lines = AsyncStream<String> { continuation in
            let reader = Thread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
            reader.name = "cache-tests-bridge.stdin"
            reader.start()
        }
        let output = Output()
        await withTaskGroup(of: Void.self) { group in
            for await line in lines {
                group.addTask {
                    let answer = await Self.answer(line, following: following, manual: manual, fetchCacheModes: !freshness.hasPrefix("shared-"))
                    guard var data = try? JSONEncoder().encode(answer) else { return }
                    data.append(UInt8(ascii: "\n"))
                    await output.write(data)
                }
            }
        }
    }

    /// Standard output, one answer line at a time.
    actor Output {
        func write(_ data: Data) { FileHandle.standardOutput.write(data) }
    }

    /// The answer to one request line.
    /// The answer to one request line. With `fetchCacheModes`, the Fetch `cache` mode is applied as
    /// a browser applies it; without (Courier as a shared cache), it is ignored: the suite sets
    /// `no-store` then only to keep a browser's own cache out of the way.
    static func answer(_ line: String, following: APIClient, manual: APIClient, fetchCacheModes: Bool = true) async -> Answer {
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(line.utf8)) else {
            return Answer(id: -1, error: "not a request: \(line)")
        }
        var request = Request<Data>(HTTPMethod(rawValue: message.method ?? "GET"), message.url)
        for pair in message.headers ?? [] where pair.count == 2 {
            request.headers.add(name: pair[0], value: pair[1])
        }
        if let body = message.body { request.body = .data(Data(body.utf8), contentType: request.headers["Content-Type"] ?? "text/plain") }
        // The Fetch standard's cache modes, as a browser turns them into request header fields.
        switch fetchCacheModes ? message.cache : nil {
        case "no-store":
            request.cacheOption = .networkOnly
            request.shouldSaveInCache = false
        case "reload":
            if !request.headers.contains("Cache-Control") { request.headers["Cache-Control"] = "no-cache" }
        case "no-cache":
            if !request.headers.contains("Cache-Control") { request.headers["Cache-Control"] = "max-age=0" }
        case "force-cache":
            request.cacheOption = .cacheOnly
        default:
            break
        }
        let client = message.redirect == "manual" ? manual : following
        do {
            let response = try await client.send(request)
            return Answer(
                id: message.id, status: response.statusCode, headers: response.headers.map { [$0.name, $0.value] },
                body: response.data.base64EncodedString(), source: "\(response.source)")
        } catch where error.kind == .notCached {
            // What an HTTP cache answers to only-if-cached with nothing stored (RFC 9111 §5.2.1.7).
            return Answer(id: message.id, status: 504, headers: [], body: "")
        } catch {
            return Answer(id: message.id, error: "\(error.kind): \(error.message)")
        }
    }
}
