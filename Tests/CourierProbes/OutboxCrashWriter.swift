import Courier
import CourierStore
import Foundation
import GRDB

/// Enqueues and sends writes through an `Outbox` without pause, for the outbox's
/// crash test: scope `k` (`log-k`) gets writes `0`, `1`, … `writes - 1`, each a `POST /logs/log-k`
/// whose body is its number. It continues from what the outbox and the server already hold (an
/// enqueue is one transaction, so a write is either kept or not), so a run killed at any moment
/// and started again neither loses nor repeats a write. Each write carries an optimistic change,
/// a ``Line`` row keyed `log-k/n`, kept in the enqueue's transaction: the rows and the writes
/// kept must match whatever moment the kill lands.
package enum OutboxCrashWriter {
    /// The optimistic row of a write (table `Line`).
    package struct Line: Codable, Identified, Sendable {
        /// `log-k/n`.
        package var uid: String
        /// The write's body.
        package var text: String
    }

    /// Runs against the server at `baseURL` with the store at `path`; writes `ready` once the
    /// outbox is open, and `done` once every write has been sent.
    package static func run(path: URL, baseURL: URL, writes: Int, scopes: Int) async throws {
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.timeout = 10
        let client = APIClient(configuration: configuration, transport: URLSessionTransport())
        let store = try CourierStore(path: path)
        let outbox = try Outbox(store: store, client: client, baseDelay: .zero)
        var next: [Int] = []
        for scope in 0..<scopes { next.append(try await nextWrite(scope: scope, store: store, client: client)) }
        CrashPoint.ready()
        while let scope = next.indices.filter({ next[$0] < writes }).randomElement() {
            let write = Request<Data>(.post, "logs/log-\(scope)", body: .data(Data("\(next[scope])".utf8), contentType: "text/plain"))
            try await outbox.enqueue(write, scope: "log-\(scope)", applying: [.save(Line(uid: "log-\(scope)/\(next[scope])", text: "\(next[scope])"))])
            next[scope] += 1
            try await outbox.flush()
        }
        while try await outbox.flush().remaining > 0 {}
        FileHandle.standardOutput.write(Data("done\n".utf8))
    }

    /// The first write of `scope` neither the outbox nor the server holds.
    static func nextWrite(scope: Int, store: CourierStore, client: APIClient) async throws -> Int {
        let queued = try await store.database.read { db in
            try Data.fetchAll(db, sql: "SELECT body FROM courier_outbox WHERE scope = ?", arguments: ["log-\(scope)"])
        }
        let sent = try await client.send(Request<JSONValue>(.get, "logs/log-\(scope)")).value["lines"]?.arrayValue ?? []
        let numbers = queued.compactMap { Int(String(decoding: $0, as: UTF8.self)) } + sent.compactMap { $0.stringValue.flatMap(Int.init) }
        return (numbers.max() ?? -1) + 1
    }
}
