import Foundation
import GRDB

/// The server's SQLite database, opened through GRDB with its schema migrated.
struct ServerDatabase: Sendable {
    let queue: DatabaseQueue
    let path: String
    let isTemporary: Bool

    /// Opens (creating if needed) the database at `path`, or a new temporary file when `nil`, in
    /// WAL mode.
    static func open(path: String?) throws -> ServerDatabase {
        let resolved = path ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("image-store-\(UUID().uuidString).sqlite").path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // WAL with synchronous=NORMAL: a commit appends to the log without an fsync of its own
        // (every authenticated request rotates a token, so writes are frequent), and readers do
        // not wait for writers.
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: resolved, configuration: configuration)
        try migrator.migrate(queue)
        return ServerDatabase(queue: queue, path: resolved, isTemporary: path == nil)
    }

    /// Deletes a temporary database's files.
    func removeIfTemporary() {
        guard isTemporary else { return }
        try? queue.close()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// The schema, one migration per change; later features add migrations here.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: images") { db in
            try db.create(table: "image") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("title", .text).notNull().defaults(to: "")
                table.column("description", .text).notNull().defaults(to: "")
                table.column("fileName", .text).notNull()
                table.column("mimeType", .text).notNull()
                table.column("data", .blob).notNull()
                table.column("createdAt", .datetime).notNull()
                table.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: accounts") { db in
            try db.create(table: "user") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("email", .text).notNull().unique(onConflict: .fail)
                table.column("name", .text).notNull().defaults(to: "")
                table.column("passwordHash", .text).notNull()
                table.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "token") { table in
                table.autoIncrementedPrimaryKey("id")
                table.belongsTo("user", onDelete: .cascade).notNull()
                table.column("client", .text).notNull().indexed()
                table.column("tokenHash", .text).notNull()
                table.column("expiry", .integer).notNull()
                table.column("replacedAt", .datetime)
            }
        }
        migrator.registerMigration("v3: documents") { db in
            try db.create(table: "document") { table in
                table.primaryKey("name", .text)
                table.column("body", .blob).notNull()
                table.column("contentType", .text).notNull()
                table.column("version", .integer).notNull()
                table.column("updatedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v4: idempotency keys") { db in
            try db.create(table: "idempotency") { table in
                table.primaryKey("key", .text)
                table.column("fingerprint", .text).notNull()
                // NULL while the first request with the key is being answered.
                table.column("status", .integer)
                table.column("headers", .blob)
                table.column("body", .blob)
                table.column("createdAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v5: logs") { db in
            try db.create(table: "log_line") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("name", .text).notNull().indexed()
                table.column("text", .text).notNull()
            }
        }
        return migrator
    }
}
