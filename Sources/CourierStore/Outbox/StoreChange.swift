import Courier
import Foundation
import GRDB

/// A change to a model's row in a ``CourierStore``, made at once beside a write kept in an
/// ``Outbox`` (an optimistic change: the app shows the edit before the server has it), and undone
/// if the server refuses the write (it becomes a dead letter, or a conflict is discarded).
///
/// ```swift
/// try await outbox.enqueue(rename, scope: "image-7", applying: [.save(Image(id: 7, title: "Dusk"))])
/// ```
///
/// The change and its write are kept in one transaction. An undo puts back each row the change
/// wrote (the model's, and those of the nested `Identified` models saved with it) as it was
/// before the change, unless the row has changed since (an import from the server, a later
/// optimistic change): newer data is never replaced by older.
public struct StoreChange: Sendable {
    /// The model's table.
    let table: String
    /// The row's key.
    let uid: DatabaseValue
    /// What the change does inside the enqueue's transaction, telling the journal of each row
    /// before it writes it.
    let apply: @Sendable (CourierStore, Database, RowJournal) throws -> Void

    /// Saves `model` as if the server had sent it: its JSON written by `encoder` (the key rules
    /// of ``Courier/ModelEncoder``, so the store's ``Courier/ModelDecoder`` reads it back), into the
    /// model's table, its indexed columns and nested `Identified` models included.
    public static func save<Model: Codable & Identified & Sendable>(_ model: Model, encoder: ModelEncoder = ModelEncoder()) -> StoreChange {
        StoreChange(table: StoreTable.name(of: Model.self), uid: StoreKey.value(model.uid)) { store, db, journal in
            let element: ImportElement
            do {
                element = try ImportElement(json: encoder.encodeValue(model))
            } catch {
                throw CourierError(.encodingFailed, "\(StoreTable.name(of: Model.self)) \(model.uid) could not be written as JSON: \(error)", underlyingError: error)
            }
            var importer = ModelImporter(db: db, store: store, decoder: store.configuration.decoder, importedAt: Date().timeIntervalSince1970)
            importer.journal = journal
            _ = try importer.run(Model.self, elements: [element], missing: .keep)
        }
    }

    /// Deletes the `Model` object keyed `uid` (nothing when there is none).
    public static func delete<Model: Decodable & Identified & Sendable>(_ type: Model.Type, uid: Model.UID) -> StoreChange {
        let key = StoreKey.value(uid)
        return StoreChange(table: StoreTable.name(of: Model.self), uid: key) { store, db, journal in
            let table = try store.table(for: Model.self, in: db)
            try journal.willWrite(table.name, uid: key, in: db)
            try db.execute(sql: "DELETE FROM \(table.quotedName) WHERE uid = ?", arguments: [key])
        }
    }
}
