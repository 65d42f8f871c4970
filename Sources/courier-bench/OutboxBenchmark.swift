import BenchWorkloads
import Courier
import CourierStore
import Foundation
import GRDB
import ImageStoreServer
import ImageStoreTesting

/// `courier-bench outbox`: the offline write queue against doing its work by hand.
///
/// - `outbox.enqueue`: `Outbox.enqueue` (the request prepared as it would be sent, then one
///   transaction in the store's file) against a hand-written GRDB insert of the same row into the
///   same table, each in its own transaction, in a store opened the same way (ratio outbox/hand).
/// - `outbox.replay`: `flush()` of writes enqueued beforehand (`POST /logs/…`, each with its
///   `Idempotency-Key`) against sending the same requests, keys included, one after another with
///   `APIClient.send` (ratio flush/direct), alternating rounds.
struct OutboxBenchmark {
    let options: BenchOptions

    func run() async throws {
        let server = try await ImageStoreServer.instrumented()
        let directory = try scratchDirectory("outbox")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        let client = APIClient(configuration: configuration, transport: URLSessionTransport())
        let store = try CourierStore(path: directory.appendingPathComponent("app.sqlite"))
        let outbox = try Outbox(store: store, client: client, baseDelay: .zero)
        let write = Request<Data>(.post, "logs/bench", body: .data(Data(#"{"title":"Dusk","description":"Over the bay"}"#.utf8), contentType: "application/json"))

        if options.selects("outbox.enqueue") {
            let wire = try client.transportRequest(for: write)
            let headers = try JSONEncoder().encode(wire.headers.filter { $0.name != "Content-Type" }.map { [$0.name, $0.value] })
            let pair = PairedMeasurement(name: "outbox.enqueue", count: options.scaled(2000, minimum: 50), concurrency: 1, rounds: options.rounds)
            let result = try await pair.run(
                courier: { try await outbox.enqueue(write, scope: "bench") },
                raw: {
                    try await store.database.write { db in
                        try db.execute(
                            sql: """
                                INSERT INTO courier_outbox (scope, method, url, headers, body, contentType, idempotencyKey, state, enqueuedAt)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                                """,
                            arguments: [
                                "hand", "POST", wire.url.absoluteString, headers, wire.body, "application/json", UUID().uuidString.lowercased(),
                                "pending", Date(),
                            ])
                    }
                })
            PairedMeasurement.report("outbox.enqueue", result)
            try await store.database.write { db in try db.execute(sql: "DELETE FROM courier_outbox") }
        }

        if options.selects("outbox.replay") {
            let count = options.scaled(300, minimum: 20)
            var flushTimes: [Double] = []
            var directTimes: [Double] = []
            let clock = ContinuousClock()
            for round in 0..<max(2, options.rounds / 2) {
                for _ in 0..<count { try await outbox.enqueue(write, scope: "replay") }
                let flush = { () async throws -> Double in
                    let start = clock.now
                    let sent = try await outbox.flush().sent
                    guard sent == count else { throw BenchError("outbox: \(sent) of \(count) sent") }
                    return (clock.now - start).seconds
                }
                let direct = { () async throws -> Double in
                    let start = clock.now
                    for _ in 0..<count {
                        _ = try await client.send(write.header("Idempotency-Key", "\"\(UUID().uuidString.lowercased())\""))
                    }
                    return (clock.now - start).seconds
                }
                if round.isMultiple(of: 2) {
                    flushTimes.append(try await flush())
                    directTimes.append(try await direct())
                } else {
                    directTimes.append(try await direct())
                    flushTimes.append(try await flush())
                }
            }
            let ratios = zip(directTimes, flushTimes).map { $0 / $1 }.sorted()
            let median = ratios[ratios.count / 2]
            let rate = { (times: [Double]) in Int((Double(count * times.count) / times.reduce(0, +)).rounded()) }
            print("outbox.replay ratio=\(String(format: "%.2f", median)) flush=\(rate(flushTimes))/s direct=\(rate(directTimes))/s writes=\(count) rounds=\(flushTimes.count)")
        }
        await server.stop()
    }
}
