import Courier
import Foundation
import GRDB

// Optimistic changes: made in the enqueue's transaction, undone in the transaction that
// dead-letters or discards their write.
extension Outbox {
    /// One change's undo, kept with its entry: the row before the change (`nil`: there was none)
    /// and the row's digest after it (`nil`: the change left no row), to tell whether the row has
    /// changed since.
    struct Undo: Codable {
        var table: String
        var uid: StoredValue
        var before: [String: StoredValue]?
        var after: Data?
    }

    /// Makes `changes` in `db`; returns their undo (`nil` for no changes).
    static func apply(_ changes: [StoreChange], store: CourierStore, in db: Database) throws -> Data? {
        guard !changes.isEmpty else { return nil }
        var undos: [Undo] = []
        for change in changes {
            let before = try row(of: change.table, uid: change.uid, in: db)
            try change.apply(store, db)
            let after = try row(of: change.table, uid: change.uid, in: db)
            undos.append(
                Undo(
                    table: change.table, uid: StoredValue(change.uid), before: before?.mapValues(StoredValue.init),
                    after: after.flatMap { Data.fromDatabaseValue($0["digest"] ?? .null) }))
        }
        return try JSONEncoder().encode(undos)
    }

    /// Undoes the changes an entry made, newest first: each row goes back to how it was before,
    /// unless it has changed since (its digest is no longer the one the change left).
    static func rollBack(_ undo: Data?, in db: Database) throws {
        guard let undo, let undos = try? JSONDecoder().decode([Undo].self, from: undo) else { return }
        for undo in undos.reversed() where try db.tableExists(undo.table) {
            let table = undo.table.quotedDatabaseIdentifier
            let uid = undo.uid.databaseValue
            let current = try Data.fetchOne(db, sql: "SELECT digest FROM \(table) WHERE uid = ?", arguments: [uid])
            guard current == undo.after else { continue }
            try db.execute(sql: "DELETE FROM \(table) WHERE uid = ?", arguments: [uid])
            guard let before = undo.before else { continue }
            let columns = Set(try db.columns(in: undo.table).map(\.name))
            let kept = before.filter { columns.contains($0.key) }.sorted { $0.key < $1.key }
            let names = kept.map(\.key.quotedDatabaseIdentifier).joined(separator: ", ")
            let marks = kept.map { _ in "?" }.joined(separator: ", ")
            try db.execute(
                sql: "INSERT INTO \(table) (\(names)) VALUES (\(marks))", arguments: StatementArguments(kept.map(\.value.databaseValue)))
        }
    }

    /// Every column of the row keyed `uid` in `table`; `nil` when there is no such row or table.
    private static func row(of table: String, uid: DatabaseValue, in db: Database) throws -> [String: DatabaseValue]? {
        guard try db.tableExists(table),
              let row = try Row.fetchOne(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE uid = ?", arguments: [uid])
        else { return nil }
        var values: [String: DatabaseValue] = [:]
        for (name, value) in row { values[name] = value }
        return values
    }
}
