import Courier
import Foundation
import GRDB

extension CourierStore {
    /// Imports GRDB records (your own tables, made by ``StoreConfiguration/migrator``) from a
    /// response body, with the same rules as the model import: one transaction, records matched by
    /// primary key, unchanged ones not rewritten, changed columns only updated, and with
    /// ``MissingObjects/delete`` records the body does not list deleted.
    ///
    /// ```swift
    /// try await store.import(Player.self, from: body, root: "players")   // Player: Codable, FetchableRecord, PersistableRecord
    /// ```
    /// - Throws: ``CourierError/Kind/decodingFailed`` when an object does not fit the record,
    ///   ``CourierError/Kind/store`` when SQLite fails (a missing table names it). Nothing changes.
    @discardableResult
    public func `import`<Record: Decodable & FetchableRecord & PersistableRecord & Sendable>(
        _ type: Record.Type, from body: Data, contentType: String? = nil, root: String? = nil, missing: MissingObjects = .keep
    ) async throws(CourierError) -> ImportSummary {
        let decoder = configuration.decoder
        let elements = try Self.elements(of: body, contentType: contentType, root: root, as: Record.self, decoder: decoder)
        let records: [Record]
        do {
            records = try elements.map { element in try decoder.decode(Record.self, from: element.parsed()) }
        } catch {
            throw CourierError.store(error, path: path, doing: "import \(Record.databaseTableName) records")
        }
        do {
            return try await database.write { db in try Self.upsert(records, missing: missing, in: db) }
        } catch {
            throw CourierError.store(error, path: path, doing: "import \(Record.databaseTableName) records")
        }
    }

    private static func upsert<Record: FetchableRecord & PersistableRecord>(
        _ records: [Record], missing: MissingObjects, in db: Database
    ) throws -> ImportSummary {
        let keyColumns = try db.primaryKey(Record.databaseTableName).columns
        var summary = ImportSummary()
        var seen = Set<[DatabaseValue]>()
        for record in records {
            let values = try record.databaseDictionary
            let key = keyColumns.map { values[$0] ?? .null }
            seen.insert(key)
            let keyDictionary = Dictionary(uniqueKeysWithValues: zip(keyColumns, key.map { $0 as (any DatabaseValueConvertible)? }))
            if let existing = try Record.fetchOne(db, key: keyDictionary) {
                if try record.updateChanges(db, from: existing) { summary.updated += 1 } else { summary.unchanged += 1 }
            } else {
                try record.insert(db)
                summary.inserted += 1
            }
        }
        if missing == .delete {
            let columns = keyColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            let stored = try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(Record.databaseTableName.quotedDatabaseIdentifier)")
            for row in stored {
                let key = (0..<keyColumns.count).map { row[$0] as DatabaseValue }
                guard !seen.contains(key) else { continue }
                let keyDictionary = Dictionary(uniqueKeysWithValues: zip(keyColumns, key.map { $0 as (any DatabaseValueConvertible)? }))
                if try Record.deleteOne(db, key: keyDictionary) { summary.deleted += 1 }
            }
        }
        return summary
    }
}
