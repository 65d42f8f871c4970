import Courier
import Foundation
import GRDB

/// A zero-boilerplate model's table: `uid` (primary key), `body` (the object's JSON), `digest`
/// (SHA-256 of the body as imported, to skip unchanged objects), `importedAt` (Unix seconds), then
/// any indexed columns.
struct StoreTable: Sendable {
    static let fixedColumns: Set<String> = ["uid", "body", "digest", "importedAt"]

    let name: String
    let columns: [ErasedColumn]

    var quotedName: String { name.quotedDatabaseIdentifier }

    /// The table name for a model type.
    static func name(of type: Any.Type) -> String {
        (type as? any StoreNamed.Type)?.storeTableName ?? String(describing: type)
    }

    /// Creates the table and its indexed columns when missing, filling new columns of existing
    /// rows by decoding their bodies with `decode`.
    func create(in db: Database, decode: (Data) throws -> Any) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(quotedName) (
                uid NOT NULL PRIMARY KEY, body TEXT NOT NULL, digest BLOB NOT NULL, importedAt DOUBLE NOT NULL)
            """)
        guard !columns.isEmpty else { return }
        let existing = Set(try db.columns(in: name).map(\.name))
        let added = columns.filter { !existing.contains($0.name) }
        for column in added {
            try db.execute(sql: "ALTER TABLE \(quotedName) ADD COLUMN \(column.name.quotedDatabaseIdentifier)")
        }
        for column in columns {
            let index = "\(name)_\(column.name)".quotedDatabaseIdentifier
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(index) ON \(quotedName)(\(column.name.quotedDatabaseIdentifier))")
        }
        guard !added.isEmpty else { return }
        let assignments = added.map { "\($0.name.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")
        let update = try db.makeStatement(sql: "UPDATE \(quotedName) SET \(assignments) WHERE uid = ?")
        let rows = try Row.fetchAll(db, sql: "SELECT uid, body FROM \(quotedName)")
        for row in rows {
            let model = try decode(row["body"])
            let uid: DatabaseValue = row["uid"]
            try update.execute(arguments: StatementArguments(added.map { $0.value(model) } + [uid]))
        }
    }
}

extension CourierStore {
    /// The table of `Model`, created (with its registered columns) on first use in this process.
    func table<Model: Decodable & Sendable>(for type: Model.Type, in db: Database) throws -> StoreTable {
        let name = StoreTable.name(of: type)
        let table = StoreTable(name: name, columns: registeredColumns.withLock { $0[name] ?? [] })
        if preparedTables.withLock({ $0.contains(name) }) { return table }
        let decoder = configuration.decoder
        try table.create(in: db) { body in try decoder.decode(Model.self, from: body) }
        preparedTables.withLock { _ = $0.insert(name) }
        return table
    }

    /// The table of a nested model known only as a value.
    func table(forNested model: any Identified, in db: Database) throws -> StoreTable {
        func open<Model: Identified>(_ model: Model) throws -> StoreTable {
            let name = StoreTable.name(of: Model.self)
            let table = StoreTable(name: name, columns: registeredColumns.withLock { $0[name] ?? [] })
            if preparedTables.withLock({ $0.contains(name) }) { return table }
            guard let decodable = Model.self as? any Decodable.Type else { return table }
            let decoder = configuration.decoder
            try table.create(in: db) { body in try decoder.decode(decodable, from: body) }
            preparedTables.withLock { _ = $0.insert(name) }
            return table
        }
        return try open(model)
    }

    /// Adds indexed columns to `Model`'s table (and fills them for the rows already there), so
    /// queries can filter and sort on them: `store.observe(User.self, .all.order(Column("userName")))`.
    /// Register before importing; the registration lasts as long as this store object.
    /// - Throws: ``CourierError/Kind/store`` for a column name the store uses itself
    ///   (`uid`, `body`, `digest`, `importedAt`), or when SQLite fails.
    public func index<Model: Decodable & Identified & Sendable>(_ type: Model.Type, _ columns: [StoreColumn<Model>]) async throws(CourierError) {
        if let reserved = columns.first(where: { StoreTable.fixedColumns.contains($0.name) }) {
            throw CourierError(.store, "“\(reserved.name)” is a column the store keeps itself; give the indexed column another name.")
        }
        let name = StoreTable.name(of: type)
        registeredColumns.withLock { registered in
            var list = registered[name] ?? []
            for column in columns where !list.contains(where: { $0.name == column.name }) { list.append(column.erased) }
            registered[name] = list
        }
        preparedTables.withLock { _ = $0.remove(name) }
        do {
            _ = try await database.write { db in try self.table(for: Model.self, in: db) }
        } catch {
            throw CourierError.store(error, path: path, doing: "add indexed columns to \(name)")
        }
    }
}
