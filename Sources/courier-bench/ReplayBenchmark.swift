import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// `courier-bench replay`: HAR cassettes against the network they stand in for.
///
/// - `replay.get.<transport>`: GETs of `/sample` answered by a `ReplayTransport` against the same
///   GETs through the sample server on loopback on that transport (ratio replayed/live).
/// - `replay.record.<transport>`: the same GETs through a `RecordingTransport` (mode `all`,
///   writing a cassette in a temporary directory) against the bare transport; every request is
///   recorded, so the cassette grows by one entry per GET.
struct ReplayBenchmark {
    let options: BenchOptions

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        let directory = try scratchDirectory("replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ahc = AsyncHTTPClientTransport()
        let transports: [(String, any HTTPTransport)] = [("ahc", ahc), ("urlsession", URLSessionTransport())]
        let count = options.scaled(2000, minimum: 50)

        // One recorded GET, answered again and again.
        let recorded = directory.appendingPathComponent("sample.har")
        let recorder = try Cassette(file: recorded, mode: .all)
        _ = try await Self.client(server.baseURL, RecordingTransport(wrapping: ahc, cassette: recorder)).send(Request<SmallGet.Sample>(.get, "sample"))
        var matching = CassetteMatching.methodAndURL
        matching.repeatsLastAnswer = true
        let replayed = Self.client(server.baseURL, ReplayTransport(cassette: try Cassette(file: recorded, mode: .none, matching: matching)))

        for (name, transport) in transports {
            let live = Self.client(server.baseURL, transport)
            let replayLabel = "replay.get.\(name)"
            if options.selects(replayLabel) {
                let pair = PairedMeasurement(name: replayLabel, count: count, concurrency: 1, rounds: options.rounds)
                PairedMeasurement.report(replayLabel, try await pair.run(courier: { try await Self.get(replayed) }, raw: { try await Self.get(live) }))
            }
            let recordLabel = "replay.record.\(name)"
            if options.selects(recordLabel) {
                let cassette = try Cassette(file: directory.appendingPathComponent("record-\(name).har"), mode: .all)
                let recording = Self.client(server.baseURL, RecordingTransport(wrapping: transport, cassette: cassette))
                let pair = PairedMeasurement(name: recordLabel, count: count, concurrency: 1, rounds: options.rounds)
                PairedMeasurement.report(recordLabel, try await pair.run(courier: { try await Self.get(recording) }, raw: { try await Self.get(live) }))
                print("\(recordLabel) entries=\(cassette.entryCount)")
            }
        }
        try await ahc.shutdown()
        await server.stop()
    }

    static func client(_ baseURL: URL, _ transport: any HTTPTransport) -> APIClient {
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        return APIClient(configuration: configuration, transport: transport)
    }

    static func get(_ client: APIClient) async throws {
        let sample = try await client.send(Request<SmallGet.Sample>(.get, "sample")).value
        guard sample.id == "123" else { throw BenchError("replay: wrong sample") }
    }
}
