import Foundation
import GRDB

/// The rows one optimistic ``StoreChange`` writes, each as it was before the change first wrote
/// it: the model's own row and the rows of its nested `Identified` models, which its undo puts
/// back too.
final class RowJournal {
    /// A row and its columns before the change (`nil`: there was no such row).
    struct Entry {
        var table: String
        var uid: DatabaseValue
        var before: [String: DatabaseValue]?
    }

    private struct RowKey: Hashable {
        var table: String
        var uid: DatabaseValue
    }

    /// Every row written, in the order of their first writes.
    private(set) var entries: [Entry] = []
    private var recorded: Set<RowKey> = []

    /// Keeps the row keyed `uid` in `table` as it is now, unless it was kept already: call it
    /// before each write.
    func willWrite(_ table: String, uid: DatabaseValue, in db: Database) throws {
        guard recorded.insert(RowKey(table: table, uid: uid)).inserted else { return }
        entries.append(Entry(table: table, uid: uid, before: try Self.row(of: table, uid: uid, in: db)))
    }

    /// Every column of the row keyed `uid` in `table`; `nil` when there is no such row or table.
    static func row(of table: String, uid: DatabaseValue, in db: Database) throws -> [String: DatabaseValue]? {
        guard try db.tableExists(table),
              let row = try Row.fetchOne(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE uid = ?", arguments: [uid])
        else { return nil }
        var values: [String: DatabaseValue] = [:]
        for (name, value) in row { values[name] = value }
        return values
    }
}
