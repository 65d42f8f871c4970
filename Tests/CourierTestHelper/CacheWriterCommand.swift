import ArgumentParser
import Courier
import CourierProbes
import Foundation

/// `courier-test-helper cache-writer`: writes cache entries in a loop until killed. For the cache's crash
/// test kills it at random moments and checks that every entry is whole or absent.
struct CacheWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache-writer", abstract: "Write cache entries until killed (for crash tests).")

    @Option(help: "The cache directory.")
    var directory: String

    @Option(help: "How many distinct keys to write in turn.")
    var keys = 16

    func run() throws {
        ParentWatch.start()
        let cache = ResponseCache(directory: URL(fileURLWithPath: directory), memoryCapacity: 0)
        var generation = 0
        while true {
            for index in 0..<keys {
                let size = Int.random(in: 1...256) * 1024
                let fill = UInt8(truncatingIfNeeded: index &+ generation)
                let response = CachedResponse(
                    statusCode: 200, headers: ["Content-Type": "application/octet-stream", "ETag": "\"\(generation)\""],
                    body: Data(repeating: fill, count: size), url: URL(string: "http://127.0.0.1/entry/\(index)")!)
                cache.store(response, for: Self.key(index))
                if generation == 0, index == 0 {
                    CrashPoint.ready()
                }
            }
            generation += 1
        }
    }

    /// The key of entry `index`, as the crash test computes it.
    static func key(_ index: Int) -> CacheKey {
        CacheKey(digest: String(repeating: "0", count: 56) + String(format: "%08x", index), scope: "public", pathDigest: "crashtest")
    }
}
