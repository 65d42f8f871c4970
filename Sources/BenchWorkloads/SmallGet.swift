import AsyncHTTPClient
import Courier
import CourierTesting
import Foundation
import NIOCore
import NIOFoundationCompat
import InMemoryTracing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The GETs the transport benchmarks send, through Courier and through each transport's raw API,
/// with the same decoding or size check on both sides. Every request has a URL of its own
/// (`?n=…`), so no two are identical and in-flight sharing never replaces one.
package enum SmallGet {
    /// The `/sample` document.
    package struct Sample: Decodable, Sendable {
        /// Its id, `"123"`.
        package var id: String
        /// Its user name.
        package var userName: String
        /// Its email.
        package var email: String
        /// Its first-login flag.
        package var isFirstLogin: Bool
    }

    /// The decoder both sides use.
    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// A client on `transport` as the benchmarks configure it; `COURIER_BENCH_SHARING=off` in the
    /// environment turns in-flight sharing off.
    ///
    /// With `feature`, every optional feature is off but the one named, for the per-feature lines
    /// of `courier-bench overhead`: `off` (none), `sharing` (in-flight sharing, nobody joining),
    /// `metrics` (a counting backend), `tracing` (``AcceptingTracer``: Courier's own part),
    /// `tracing-recording` (``RecordingTracer``), `tracing-inmemory` (swift-distributed-tracing's
    /// `InMemoryTracer`, whose own cost dwarfs Courier's), `cache` (a lookup that
    /// misses; requests are not stored), `cookies` (the client's jar, empty: the server sets none), `retry` (a policy set, never needed), `record` (every GET recorded into a
    /// cassette in the temporary directory, through `RecordingTransport`).
    package static func client(_ baseURL: URL, _ transport: any HTTPTransport, feature: String? = nil) throws -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.decoder = decoder()
        configuration.deduplicatesRequests = ProcessInfo.processInfo.environment["COURIER_BENCH_SHARING"] != "off"
        if let feature {
            configuration.deduplicatesRequests = false
            configuration.cache = nil
            configuration.cookies = .none
            switch feature {
            case "off": break
            case "cookies": configuration.cookies = .perClient
            case "sharing": configuration.deduplicatesRequests = true
            case "metrics": configuration.metricsFactory = CountingMetrics()
            case "tracing": configuration.tracer = AcceptingTracer()
            case "tracing-recording": configuration.tracer = RecordingTracer()
            case "tracing-inmemory": configuration.tracer = InMemoryTracer()
            case "cache":
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-cache-\(UUID().uuidString)")
                configuration.cache = ResponseCache(directory: directory)
                configuration.cacheOption = .both
            case "retry": configuration.retryPolicy = .standard
            case "record":
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-record-\(UUID().uuidString).har")
                return APIClient(configuration: configuration, transport: RecordingTransport(wrapping: transport, cassette: try Cassette(file: file, mode: .all)))
            default: throw BenchError("unknown feature \(feature)")
            }
        }
        return APIClient(configuration: configuration, transport: transport)
    }

    /// A raw URLSession configured like ``URLSessionTransport``'s (no URL cache).
    package static func rawSession() -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    /// One GET of `path` through `client`: decoded as ``Sample``, or checked to be `expectedBytes` long.
    package static func courier(_ client: APIClient, path: String, expectedBytes: Int?) -> @Sendable () async throws -> Void {
        let numbers = Ticket()
        if let expected = expectedBytes {
            return {
                let response = try await client.send(Request<Data>(.get, path, query: ["n": .int(numbers.take())]))
                guard response.value.count == expected else { throw BenchError("courier: \(response.value.count) bytes") }
            }
        }
        return {
            // Never stored: with a cache, each request measures a lookup that misses.
            let sample = try await client.send(Request<Sample>(.get, path, query: ["n": .int(numbers.take())]).notSavedInCache()).value
            guard sample.id == "123" else { throw BenchError("courier: wrong sample") }
        }
    }

    /// The same GET through Courier's transport alone (``Courier/HTTPTransport/send(_:observer:)``),
    /// with no ``Courier/APIClient`` above it: the baseline that splits Courier's cost over the raw
    /// API between the transport and the client's own layers.
    package static func transport(_ transport: any HTTPTransport, baseURL: URL, path: String, expectedBytes: Int?) -> @Sendable () async throws -> Void {
        let url = baseURL.absoluteString + "/" + path
        let decoder = decoder()
        let numbers = Ticket()
        return {
            guard let numbered = URL(string: url + "?n=\(numbers.take())") else { throw BenchError("transport: bad URL") }
            let response = try await transport.send(TransportRequest(url: numbered), observer: TransferObserver())
            guard response.statusCode == 200 else { throw BenchError("transport: \(response.statusCode)") }
            try check(response.body, expectedBytes: expectedBytes, decoder: decoder, side: "transport")
        }
    }

    /// What every side checks of a body in a `Data`: `expectedBytes` long, or a ``Sample``.
    private static func check(_ body: Data, expectedBytes: Int?, decoder: JSONDecoder, side: String) throws {
        if let expectedBytes {
            guard body.count == expectedBytes else { throw BenchError("\(side): \(body.count) bytes") }
        } else {
            let sample = try decoder.decode(Sample.self, from: body)
            guard sample.id == "123" else { throw BenchError("\(side): wrong sample") }
        }
    }

    /// The same GET with `HTTPClient.execute` and `collect`.
    package static func rawAHC(_ client: HTTPClient, baseURL: URL, path: String, expectedBytes: Int?) -> @Sendable () async throws -> Void {
        let url = baseURL.absoluteString + "/" + path
        let decoder = decoder()
        let numbers = Ticket()
        return {
            let response = try await client.execute(HTTPClientRequest(url: url + "?n=\(numbers.take())"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
            guard response.status == .ok else { throw BenchError("raw ahc: \(response.status)") }
            if let expectedBytes {
                guard body.readableBytes == expectedBytes else { throw BenchError("raw ahc: \(body.readableBytes) bytes") }
            } else {
                let sample = try decoder.decode(Sample.self, from: Data(buffer: body))
                guard sample.id == "123" else { throw BenchError("raw ahc: wrong sample") }
            }
        }
    }

    /// The same GET with `URLSession.data(for:)`.
    package static func rawURLSession(_ session: URLSession, baseURL: URL, path: String, expectedBytes: Int?) -> @Sendable () async throws -> Void {
        let url = baseURL.appendingPathComponent(path).absoluteString
        let decoder = decoder()
        let numbers = Ticket()
        return {
            guard let numbered = URL(string: url + "?n=\(numbers.take())") else { throw BenchError("raw urlsession: bad URL") }
            let (data, response) = try await session.data(for: URLRequest(url: numbered))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError("raw urlsession: bad status") }
            try check(data, expectedBytes: expectedBytes, decoder: decoder, side: "raw urlsession")
        }
    }
}
