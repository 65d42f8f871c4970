import BenchWorkloads
import Courier
import CourierExamples
import CourierStore
import Foundation
import GRDB

/// `courier-bench store`: importing 10,000 seed-shaped users (the decode suite's payload, as the examples' `User`:
/// no CodingKeys, no schema code) into a
/// `CourierStore`, against a hand-written import in the same run; importing them again unchanged;
/// and the time from an import's commit to an observer's new value.
struct StoreBenchmark {
    let options: BenchOptions

    func run() async throws {
        let count = options.scaled(10_000, minimum: 100)
        let body = DecodeBenchmark.payload(count: count)
        let directory = try scratchDirectory("store")
        defer { try? FileManager.default.removeItem(at: directory) }
        var file = 0
        func freshPath() -> URL {
            file += 1
            return directory.appendingPathComponent("store-\(file).sqlite")
        }
        let clock = ContinuousClock()

        // Warm up both paths once.
        _ = try await importWithStore(body, path: freshPath())
        try handWrittenImport(body, path: freshPath())

        var ratios: [Double] = []
        var reimportRatios: [Double] = []
        var ours: [Double] = []
        var baseline: [Double] = []
        var reimports: [Double] = []
        for round in 0..<options.rounds {
            var storeTime = 0.0
            var handTime = 0.0
            var store: CourierStore?
            if round.isMultiple(of: 2) {
                let path = freshPath()
                storeTime = try await clock.measure { store = try await importWithStore(body, path: path) }.seconds
                let other = freshPath()
                handTime = try clock.measure { try handWrittenImport(body, path: other) }.seconds
            } else {
                let other = freshPath()
                handTime = try clock.measure { try handWrittenImport(body, path: other) }.seconds
                let path = freshPath()
                storeTime = try await clock.measure { store = try await importWithStore(body, path: path) }.seconds
            }
            guard let store else { throw BenchError("the store import did not run") }
            var summary = ImportSummary()
            let reimport = try await clock.measure { summary = try await store.import(User.self, from: body) }.seconds
            guard summary.unchanged == count, !summary.changedSomething else { throw BenchError("the re-import changed rows: \(summary)") }
            ratios.append(handTime / storeTime)
            reimportRatios.append(storeTime / reimport)
            ours.append(storeTime)
            baseline.append(handTime)
            reimports.append(reimport)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        if options.selects("store.import") {
            print("store.import ratio=\(String(format: "%.2f", median(ratios))) courier=\(Int(Double(count) / median(ours)))users/s "
                + "raw=\(Int(Double(count) / median(baseline)))users/s (\(count) users, \(body.count / 1024) KiB)")
        }
        if options.selects("store.reimport") {
            print("store.reimport-unchanged speedup=\(String(format: "%.2f", median(reimportRatios)))x "
                + "first=\(String(format: "%.1f", median(ours) * 1000))ms again=\(String(format: "%.1f", median(reimports) * 1000))ms")
        }
        if options.selects("store.observe") {
            let (p50, p99) = try await observeLatency(path: freshPath())
            print("store.observe-latency p50=\(Int(p50))µs p99=\(Int(p99))µs (commit to new value, 100 observed users, 1 changed per import)")
        }
    }

    private func importWithStore(_ body: Data, path: URL) async throws -> CourierStore {
        let store = try CourierStore(path: path)
        let summary = try await store.import(User.self, from: body)
        guard summary.inserted > 0 else { throw BenchError("nothing was imported") }
        return store
    }

    /// What an app would write by hand: `JSONSerialization`, then one prepared insert per user
    /// (its id, its JSON, the time) in one transaction.
    private func handWrittenImport(_ body: Data, path: URL) throws {
        let queue = try DatabasePool(path: path.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE user (uid NOT NULL PRIMARY KEY, body TEXT NOT NULL, importedAt DOUBLE NOT NULL)")
        }
        guard let users = try JSONSerialization.jsonObject(with: body) as? [[String: Any]] else { throw BenchError("not a list") }
        let now = Date().timeIntervalSince1970
        try queue.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO user (uid, body, importedAt) VALUES (?, ?, ?)")
            for user in users {
                guard let id = user["id"] as? String else { throw BenchError("a user without an id") }
                let json = try JSONSerialization.data(withJSONObject: user)
                try insert.execute(arguments: [Int(id), String(decoding: json, as: UTF8.self), now])
            }
        }
    }

    /// Imports 100 users with one renamed each time, 200 times; the time from each commit (seen by
    /// a GRDB transaction observer) to the observation's new value.
    private func observeLatency(path: URL) async throws -> (Double, Double) {
        let store = try CourierStore(path: path)
        let commits = CommitClock()
        store.database.add(transactionObserver: commits)
        func body(_ round: Int) -> Data {
            DecodeBenchmark.payload(count: 100).replacingOccurrences(of: "\"fulana0@", with: "\"round\(round)@")
        }
        try await store.import(User.self, from: body(-1))
        let rounds = 200
        let (delivered, deliveredContinuation) = AsyncStream<Double>.makeStream()
        let observer = Task {
            var values = store.observe(User.self).makeAsyncIterator()
            while try await values.next() != nil {
                let now = ContinuousClock.now
                deliveredContinuation.yield(commits.last.map { (now - $0).seconds * 1_000_000 } ?? -1)
            }
        }
        defer { observer.cancel() }
        var latencies: [Double] = []
        var arrivals = delivered.makeAsyncIterator()
        _ = await arrivals.next()  // the current value
        for round in 0..<rounds {
            let summary = try await store.import(User.self, from: body(round))
            guard summary.updated == 1 else { throw BenchError("expected one change, got \(summary)") }
            guard let latency = await arrivals.next() else { throw BenchError("the observation ended") }
            latencies.append(latency)
        }
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { throw BenchError("no observed values") }
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
    }
}

extension Data {
    fileprivate func replacingOccurrences(of text: String, with replacement: String) -> Data {
        Data(String(decoding: self, as: UTF8.self).replacingOccurrences(of: text, with: replacement).utf8)
    }
}

/// Notes the time of every commit, as GRDB reports it on the writer.
final class CommitClock: TransactionObserver, Sendable {
    private let lastCommit = Locked<ContinuousClock.Instant?>(nil)

    var last: ContinuousClock.Instant? { lastCommit.withLock { $0 } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {
        let now = ContinuousClock.now
        lastCommit.withLock { $0 = now }
    }
    func databaseDidRollback(_ db: Database) {}
}
