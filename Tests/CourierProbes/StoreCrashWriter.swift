import Courier
import CourierStore
import Foundation

/// Imports whole generations of users into a store without pause, for the store's crash test:
/// generation `g` is `count` users whose `generation` is `g`, imported with
/// ``MissingObjects/delete``, so a store that is whole holds exactly one generation.
package enum StoreCrashWriter {
    /// A user of the crash test.
    package struct User: Codable, Identified, Sendable {
        /// The identifier.
        package var uid: Int
        /// Which import wrote it.
        package var generation: Int
        /// Padding, so imports are large.
        package var note: String
    }

    /// The JSON body of generation `generation`.
    package static func body(generation: Int, count: Int) -> Data {
        let note = String(repeating: "x", count: 200)
        var text = "{\"users\":["
        for index in 0..<count {
            if index > 0 { text += "," }
            text += "{\"id\":\(index),\"generation\":\(generation),\"note\":\"\(note)\(generation)\"}"
        }
        return Data((text + "]}").utf8)
    }

    /// Imports generation after generation into the store at `path`, continuing from the one it
    /// holds; writes `ready` to standard output once the store is open. Never returns.
    package static func run(path: URL, count: Int) async throws -> Never {
        let store = try CourierStore(path: path)
        var generation = (try await store.models(User.self, .all.limit(1)).first?.generation ?? 0) + 1
        CrashPoint.ready()
        while true {
            try await store.import(User.self, from: body(generation: generation, count: count), root: "users", missing: .delete)
            generation += 1
        }
    }
}
