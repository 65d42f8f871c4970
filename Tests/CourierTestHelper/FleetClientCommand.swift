import ArgumentParser
import Courier
import CourierAsyncHTTPClient
import CourierPostgres
import Foundation
import Logging
import PostgresNIO

/// `courier-test-helper fleet-client`: one instance of a fleet. An ``APIClient`` on the
/// async-http-client transport whose cache is a `PostgresCacheStore`, sends the `--request`s in
/// turn (or, with `--concurrent`, all at once) and prints a JSON line for each: `status`,
/// `source` and `body`, or `error`. Standard input reaching its end (the parent gone) ends it.
struct FleetClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-client", abstract: "Send requests through a cache shared in PostgreSQL (JSON lines out).")

    @Option(help: "The server's base URL.")
    var server: String

    @Option(help: "PostgreSQL's port on 127.0.0.1 (user postgres, no password).")
    var postgresPort: Int

    @Option(help: "The cache table.")
    var table = "courier_cache"

    @Option(help: "The store's timeout in milliseconds.")
    var timeoutMilliseconds = 2_000

    @Option(help: "A request: `[METHOD ]path[?name=value&…]`, then `|Name: value` header fields.")
    var request: [String] = []

    @Flag(help: "Send the requests all at once.")
    var concurrent = false

    struct Line: Encodable {
        var request: String
        var status: Int?
        var source: String?
        var body: String?
        var error: String?
    }

    func run() async throws {
        ParentWatch.start()
        guard let baseURL = URL(string: server) else { throw ValidationError("--server is not a URL") }
        var logger = Logger(label: "fleet-client")
        logger.logLevel = .warning
        var postgres = PostgresClient.Configuration(host: "127.0.0.1", port: postgresPort, username: "postgres", password: nil, database: "postgres", tls: .disable)
        postgres.options.connectTimeout = .seconds(2)
        let database = PostgresClient(configuration: postgres, backgroundLogger: logger)
        let running = Task { await database.run() }
        var storeConfiguration = PostgresCacheStore.Configuration()
        storeConfiguration.table = table
        storeConfiguration.timeout = .milliseconds(timeoutMilliseconds)
        let store = try PostgresCacheStore(client: database, configuration: storeConfiguration, logger: logger)
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = ResponseCache(store: store, logger: logger)
        configuration.cacheFreshness = .http
        configuration.cacheOption = .both
        configuration.logger = logger
        let transport = AsyncHTTPClientTransport()
        let client = APIClient(configuration: configuration, transport: transport)
        let requests = request
        let lines: [Line]
        if concurrent {
            lines = await withTaskGroup(of: (Int, Line).self) { group in
                for (index, text) in requests.enumerated() { group.addTask { (index, await Self.send(text, with: client)) } }
                var lines: [(Int, Line)] = []
                for await line in group { lines.append(line) }
                return lines.sorted { $0.0 < $1.0 }.map(\.1)
            }
        } else {
            var sent: [Line] = []
            for text in requests { sent.append(await Self.send(text, with: client)) }
            lines = sent
        }
        // An instance ends when its background revalidations do.
        await client.backgroundRevalidationsEnded()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for line in lines {
            FileHandle.standardOutput.write(try encoder.encode(line) + Data("\n".utf8))
        }
        try? await transport.shutdown()
        running.cancel()
    }

    static func send(_ text: String, with client: APIClient) async -> Line {
        let parts = text.split(separator: "|").map(String.init)
        var headers = HTTPHeaders()
        for field in parts.dropFirst() {
            guard let colon = field.firstIndex(of: ":") else { continue }
            headers[String(field[..<colon])] = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        // `[METHOD ]path[?name=value&…]`
        var target = parts.first ?? "/"
        var method = HTTPMethod.get
        if let space = target.firstIndex(of: " ") {
            method = HTTPMethod(rawValue: String(target[..<space]))
            target = String(target[target.index(after: space)...])
        }
        var query: Parameters = [:]
        if let mark = target.firstIndex(of: "?") {
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let halves = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                query[halves[0]] = .string(halves.count > 1 ? halves[1] : "")
            }
            target = String(target[..<mark])
        }
        let request = Request<Data>(method, target, query: query, headers: headers)
        do {
            let response = try await client.send(request)
            return Line(request: text, status: response.statusCode, source: "\(response.source)", body: String(decoding: response.value, as: UTF8.self))
        } catch {
            return Line(request: text, error: error.message)
        }
    }
}
