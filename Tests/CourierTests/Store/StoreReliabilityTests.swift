import Courier
import CourierDemo
import CourierProbes
import CourierStore
import Foundation
import GRDB
import Testing

/// A store never loses or mixes data: crashes mid-import, unreadable files, many tasks at once.
@Suite struct StoreReliabilityTests {
    typealias CrashUser = StoreCrashWriter.User

    @Test func anUnreadableFileIsNamedAndKeptUnlessRecreateIsAsked() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("store.sqlite")
        let garbage = Data("<html>this is not a database</html>".utf8) + Data(repeating: 7, count: 8_192)
        try garbage.write(to: path)

        let error = #expect(throws: CourierError.self) { try CourierStore(path: path) }
        #expect(error?.kind == .store)
        #expect(error?.message.contains(path.path) == true)
        #expect(error?.message.contains("not a readable SQLite database") == true)
        #expect(try Data(contentsOf: path) == garbage)

        let store = try CourierStore(path: path, configuration: StoreConfiguration(recreatesUnreadableFile: true))
        #expect(try await store.count(StoreFixtures.User.self) == 0)
        try await store.import(StoreFixtures.User.self, from: Data(StoreFixtures.users(1...2).utf8))
        #expect(try await store.count(StoreFixtures.User.self) == 2)
    }

    /// Eight tasks import whole generations while eight read: no busy error reaches anyone, every
    /// read sees one whole generation, and the last import wins.
    @Test func concurrentImportsAndReadsSeeWholeGenerations() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let store = try CourierStore(path: directory.url.appendingPathComponent("store.sqlite"))
        try await store.import(CrashUser.self, from: StoreCrashWriter.body(generation: 0, count: 300), root: "users", missing: .delete)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 1...8 {
                group.addTask {
                    for round in 0..<5 {
                        try await store.import(
                            CrashUser.self, from: StoreCrashWriter.body(generation: writer * 100 + round, count: 300), root: "users", missing: .delete)
                    }
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<20 {
                        let users = try await store.models(CrashUser.self)
                        #expect(users.count == 300)
                        #expect(Set(users.map(\.generation)).count == 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.count(CrashUser.self) == 300)
    }

    /// Kills a process importing 1,000-user generations (250 KB bodies) without pause at random moments, 200
    /// times; after each kill the database passes `integrity_check` and holds exactly one whole
    /// generation (or nothing, before the first commit). The moments fall within 500 ms of the
    /// store's opening: an import takes about 230 ms in a debug build, so kills land both inside
    /// the first import and after commits.
    @Test func importsAreAllOrNothingWhenTheProcessIsKilled() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("store.sqlite")
        var kills = 0
        var generations = Set<Int>()
        for _ in 0..<200 {
            if try await killWriter(["store-writer", "--path", path.path, "--count", "1000"], within: .milliseconds(500)) { kills += 1 }

            let queue = try DatabaseQueue(path: path.path)
            let (integrity, counts) = try await queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                let counts = try db.tableExists("User")
                    ? Row.fetchAll(db, sql: "SELECT json_extract(body, '$.generation') AS generation, count(*) AS count FROM User GROUP BY 1")
                        .map { ($0["generation"] as Int, $0["count"] as Int) }
                    : []
                return (integrity, counts)
            }
            try queue.close()
            #expect(integrity == ["ok"])
            #expect(counts.isEmpty || (counts.count == 1 && counts[0].1 == 1000), "found \(counts)")
            if let generation = counts.first?.0 { generations.insert(generation) }
        }
        #expect(kills == 200)
        #expect(generations.count > 1, "no kill landed after an import committed")
        let store = try CourierStore(path: path)
        #expect(try await store.count(CrashUser.self) == 1000)
    }
}
