import Courier
import CourierStore
import Foundation
import GRDB
import ImageStoreServer
import ImageStoreTesting

/// Models and payloads of the store tests: seed 002's users and pizzas, keyed by `id` (read as `uid`).
enum StoreFixtures {
    struct Pizza: Codable, Identified, Sendable {
        var uid: Int
        var name: String
    }

    struct User: Codable, Identified, Sendable {
        var uid: Int
        var userName: String
        var isFirstLogin: Bool
        var favoritePizza: Pizza?
        var orderedPizzas: [Pizza]?
    }

    struct Image: Codable, Identified, Sendable {
        var uid: Int
        var title: String
        var mimeType: String
        var size: Int
    }

    /// A GRDB record in a table of the test's own migration.
    struct Player: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
        var id: Int
        var name: String
        var score: Int
    }

    static var playerMigrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("players") { db in
            try db.create(table: "player") { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.column("score", .integer).notNull()
            }
        }
        return migrator
    }

    /// `{"id": …, "user_name": …, "is_first_login": …}` objects, as the API writes them.
    static func users(_ ids: some Sequence<Int>, name: (Int) -> String = { "user\($0)" }) -> String {
        "[" + ids.map { #"{"id":\#($0),"user_name":"\#(name($0))","is_first_login":\#($0 % 2 == 0)}"# }.joined(separator: ",") + "]"
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(count: 32)

    /// Stores `json` on the sample server as document `name` (served back as `application/json`).
    static func put(_ json: String, as name: String, on client: APIClient) async throws {
        _ = try await client.send(Request<Data>(.put, "documents/\(name)", body: .data(Data(json.utf8), contentType: "application/json")))
    }

    /// Uploads images titled `titles` to the sample server.
    static func upload(_ titles: [String], with client: APIClient) async throws {
        for title in titles {
            _ = try await client.send(Request<JSONValue>(.post, "images", body: .multipart([.text("title", title), .data("image", png, fileName: "\(title).png")])))
        }
    }
}

extension CourierStore {
    /// The `importedAt` of every row of `table`, by uid.
    func importTimes(_ table: String) async throws -> [Int: Double] {
        try await database.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT uid, importedAt FROM \(table.quotedDatabaseIdentifier)").map {
                ($0["uid"] as Int, $0["importedAt"] as Double)
            })
        }
    }
}
