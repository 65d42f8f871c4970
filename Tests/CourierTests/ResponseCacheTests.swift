@testable import Courier
import Crypto
import Foundation
import Testing

/// The store itself: file format and corruption, memory cap and most-accessed retention, disk cap,
/// concurrency, and crash safety with a writer killed mid-write.
@Suite struct ResponseCacheTests {
    static func key(_ index: Int, scope: String = "public") -> CacheKey {
        CacheKey(digest: String(repeating: "a", count: 56) + String(format: "%08x", index), scope: scope, pathDigest: "p\(index % 3)")
    }

    static func entry(_ index: Int, size: Int = 1000) -> CachedResponse {
        CachedResponse(
            statusCode: 200,
            headers: ["Content-Type": "application/json", "ETag": "\"\(index)\"", "X-Total-Count": "7", "Connection": "keep-alive", "Set-Cookie": "a=b"],
            body: Data(repeating: UInt8(index % 251), count: size), url: URL(string: "http://127.0.0.1/items/\(index)")!)
    }

    /// Equal but for the time stored.
    static func same(_ a: CachedResponse?, _ b: CachedResponse) -> Bool {
        guard let a else { return false }
        return a.statusCode == b.statusCode && a.headers == b.headers && a.body == b.body && a.url == b.url
    }

    /// An entry keeps its header fields, an API's own included, but not the connection's or cookies.
    @Test func entriesRoundTripThroughDiskWithTheirHeaders() async throws {
        try await withTemporaryCache { cache, directory in
            let stored = Self.entry(1)
            cache.store(stored, for: Self.key(1))
            #expect(directory.files.contains(Self.key(1).relativePath))
            let reopened = ResponseCache(directory: directory.url)
            let read = try #require(reopened.response(for: Self.key(1)))
            #expect(read == stored)
            #expect(read.headers["X-Total-Count"] == "7" && read.etag == "\"1\"" && read.headers["Content-Type"] == "application/json")
            #expect(read.headers["Connection"] == nil && read.headers["Set-Cookie"] == nil)
        }
    }

    /// An entry written in format version 1 (before entries kept `Vary` selections), laid out by
    /// hand, reads back.
    @Test func anEntryOfTheFirstFormatStaysReadable() async throws {
        try await withTemporaryCache { cache, directory in
            let key = Self.key(7)
            func field(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
            func field(_ text: String) -> [UInt8] { field(UInt64(text.utf8.count)) + Array(text.utf8) }
            let body = Array("{\"old\":true}".utf8)
            var header = field(key.description.split(separator: "/").last.map { String($0.dropLast(".apicache".count)) } ?? "")
            header += field(200) + field("http://127.0.0.1/items/7") + field(Date().timeIntervalSinceReferenceDate.bitPattern)
            header += field(2) + field("Content-Type") + field("application/json") + field("ETag") + field("\"7\"")
            header += field(UInt64(body.count))
            let checksum = Array(SHA256.hash(data: header + body))
            let file = Array("CRCH".utf8) + [1] + Array(field(UInt64(header.count)).prefix(4)) + header + checksum + body
            let url = directory.url.appendingPathComponent(key.description)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file).write(to: url)
            let read = try #require(cache.response(for: key))
            #expect(read.statusCode == 200 && read.body == Data(body) && read.etag == "\"7\"" && read.headers["Content-Type"] == "application/json")
        }
    }

    @Test(arguments: ["flip-header", "flip-body", "flip-checksum", "truncate", "empty", "foreign", "garbage", "version"])
    func aDamagedFileIsAMissAndIsRemoved(damage: String) async throws {
        try await withTemporaryCache { cache, directory in
            cache.store(Self.entry(1), for: Self.key(1))
            cache.store(Self.entry(2), for: Self.key(2))
            let file = directory.url.appendingPathComponent(Self.key(1).relativePath)
            var bytes = [UInt8](try Data(contentsOf: file))
            switch damage {
            case "flip-header": bytes[20] ^= 0x01
            case "flip-body": bytes[bytes.count - 10] ^= 0x80
            case "flip-checksum":
                let headerLength = Int(bytes[5]) | Int(bytes[6]) << 8
                bytes[9 + headerLength + 3] ^= 0x10
            case "truncate": bytes.removeLast(100)
            case "empty": bytes = []
            case "foreign": bytes = [UInt8](try Data(contentsOf: directory.url.appendingPathComponent(Self.key(2).relativePath)))
            case "garbage": bytes = Array("<html>not a cache entry</html>".utf8) + [UInt8](repeating: 0, count: 64)
            default: bytes[4] = 99
            }
            try Data(bytes).write(to: file)
            let reopened = ResponseCache(directory: directory.url, memoryCapacity: 0)
            #expect(reopened.response(for: Self.key(1)) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(Self.same(reopened.response(for: Self.key(2)), Self.entry(2)))
        }
    }

    @Test func removeOneAndClearAll() async throws {
        try await withTemporaryCache { cache, directory in
            for index in 0..<4 { cache.store(Self.entry(index), for: Self.key(index)) }
            cache.removeResponse(for: Self.key(0))
            #expect(cache.response(for: Self.key(0)) == nil && cache.response(for: Self.key(1)) != nil)
            cache.removeAll()
            #expect((0..<4).allSatisfy { cache.response(for: Self.key($0)) == nil })
            #expect(directory.files.filter { $0.hasSuffix(".apicache") }.isEmpty)
            #expect(cache.diskUsage == 0 && cache.memoryUsage == 0)
        }
    }

    @Test func theMemoryCapKeepsTheMostAccessedEntriesAcrossARestart() async throws {
        let size = 10_000
        // An entry costs its body, its header fields and a little more: well under 512 bytes here.
        let capacity = 3 * (size + 512)
        try await withTemporaryCache(memoryCapacity: capacity) { cache, directory in
            for index in 0..<6 { cache.store(Self.entry(index, size: size), for: Self.key(index)) }
            #expect(cache.memoryUsage <= capacity)
            // Entries 3, 4, 5 are read most; 0 is read once.
            for index in [3, 4, 5] { for _ in 0..<(index * 2) { _ = cache.response(for: Self.key(index)) } }
            _ = cache.response(for: Self.key(0))
            #expect([3, 4, 5].allSatisfy { cache.isInMemory(Self.key($0)) })
            #expect(cache.memoryUsage <= capacity)
            // A rarely read entry does not push a much-read one out.
            _ = cache.response(for: Self.key(1))
            #expect([3, 4, 5].allSatisfy { cache.isInMemory(Self.key($0)) })
            cache.flush()

            let restarted = ResponseCache(directory: directory.url, memoryCapacity: capacity)
            await restarted.loaded()
            #expect([3, 4, 5].allSatisfy { restarted.isInMemory(Self.key($0)) })
            #expect(![0, 1, 2].contains { restarted.isInMemory(Self.key($0)) })
            #expect(restarted.accessCount(for: Self.key(5)) == 10)
            #expect(restarted.memoryUsage <= capacity)
            restarted.memoryCapacity = size + 512
            #expect(restarted.memoryUsage <= size + 512)
            #expect(restarted.isInMemory(Self.key(5)))
        }
    }

    @Test func theDiskCapEvictsTheLeastAccessed() async throws {
        try await withTemporaryCache(memoryCapacity: 0) { cache, directory in
            cache.diskCapacity = 50_000
            for index in 0..<4 {
                cache.store(Self.entry(index, size: 10_000), for: Self.key(index))
                for _ in 0..<(index + 1) { _ = cache.response(for: Self.key(index)) }
            }
            for index in 4..<8 { cache.store(Self.entry(index, size: 10_000), for: Self.key(index)) }
            #expect(cache.diskUsage <= 50_000)
            let onDisk = directory.files.filter { $0.hasSuffix(".apicache") }
            #expect(onDisk.count <= 4)
            #expect(onDisk.contains(Self.key(3).relativePath) && onDisk.contains(Self.key(7).relativePath))
        }
    }

    @Test func temporaryFilesOfDeadWritersAreSwept() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.url.appendingPathComponent("public/p0")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let dead = folder.appendingPathComponent("abc.999999999.1.tmp")
        let alive = folder.appendingPathComponent("abc.\(getpid()).2.tmp")
        try Data("x".utf8).write(to: dead)
        try Data("x".utf8).write(to: alive)
        let cache = ResponseCache(directory: directory.url)
        await cache.loaded()
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
    }

    @Test func aThousandConcurrentReadersAndWritersNeverMixUpEntries() async throws {
        try await withTemporaryCache(memoryCapacity: 40_000) { cache, _ in
            await withTaskGroup(of: Bool.self) { group in
                for task in 0..<1_000 {
                    group.addTask {
                        let index = task % 20
                        switch task % 5 {
                        case 0, 1: cache.store(Self.entry(index, size: 500 + index * 100), for: Self.key(index))
                        case 4 where task % 50 == 4: cache.removeResponse(for: Self.key(index))
                        default: break
                        }
                        guard let read = cache.response(for: Self.key(index)) else { return true }
                        return Self.same(read, Self.entry(index, size: 500 + index * 100))
                    }
                }
                for await consistent in group { #expect(consistent) }
            }
            #expect(cache.memoryUsage <= 40_000)
        }
    }

    /// Kills a process that writes entries without pause at random moments, 200 times; afterwards
    /// every entry reads back whole or is absent, and no temporary file is left.
    @Test func entriesSurviveAWriterKilledAtRandomMoments() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var kills = 0
        for _ in 0..<200 {
            if try await killWriter(["cache-writer", "--directory", directory.url.path], within: .milliseconds(20)) { kills += 1 }
        }
        #expect(kills == 200)
        let cache = ResponseCache(directory: directory.url, memoryCapacity: 0)
        await cache.loaded()
        let files = directory.files
        #expect(!files.contains { $0.hasSuffix(".tmp") })
        var whole = 0
        for index in 0..<16 {
            let key = CacheKey(digest: String(repeating: "0", count: 56) + String(format: "%08x", index), scope: "public", pathDigest: "crashtest")
            guard files.contains(key.relativePath) else { continue }
            let entry = cache.response(for: key)
            #expect(entry != nil, "entry \(index) was damaged")
            if let entry {
                #expect(entry.body.allSatisfy { $0 == entry.body.first })
                whole += 1
            }
        }
        #expect(whole > 0)
    }
}
