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

    /// Makes `changes` in `db`; returns their undo (`nil` for no changes): one entry for every
    /// row a change wrote, its nested models' rows included.
    static func apply(_ changes: [StoreChange], store: CourierStore, in db: Database) throws -> Data? {
        guard !changes.isEmpty else { return nil }
        var undos: [Undo] = []
        for change in changes {
            let journal = RowJournal()
            try journal.willWrite(change.table, uid: change.uid, in: db)
            try change.apply(store, db, journal)
            for entry in journal.entries {
                let after = try RowJournal.row(of: entry.table, uid: entry.uid, in: db)
                undos.append(
                    Undo(
                        table: entry.table, uid: StoredValue(entry.uid), before: entry.before?.mapValues(StoredValue.init),
                        after: after.flatMap { Data.fromDatabaseValue($0["digest"] ?? .null) }))
            }
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

}
