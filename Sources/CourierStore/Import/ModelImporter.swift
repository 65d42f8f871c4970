import Courier
import Foundation
import GRDB

/// One import's work inside its transaction: upserts the objects of one response into their
/// tables, skipping unchanged ones, and counts what it did.
struct ModelImporter {
    let db: Database
    let store: CourierStore
    let decoder: ModelDecoder
    let importedAt: Double
    /// Told of each row before it is written, for an optimistic change's undo.
    var journal: RowJournal?

    /// Imports top-level `Model` objects.
    func run<Model: Decodable & Identified & Sendable>(
        _ type: Model.Type, elements: [ImportElement], missing: MissingObjects
    ) throws -> ImportSummary {
        let table = try store.table(for: Model.self, in: db)
        var summary = ImportSummary()
        var byDigest: [Data: DatabaseValue] = [:]
        var stored = Set<DatabaseValue>()
        let rows = try Row.fetchCursor(db, sql: "SELECT uid, digest FROM \(table.quotedName)")
        while let row = try rows.next() {
            let uid: DatabaseValue = row[0]
            let digest: Data = row[1]
            byDigest[digest] = uid
            stored.insert(uid)
        }
        var seen = Set<DatabaseValue>()
        seen.reserveCapacity(elements.count)
        let session = decoder.makeSession()
        for element in elements {
            let digest = element.digest
            if let uid = byDigest[digest] {
                seen.insert(uid)
                summary.unchanged += 1
                continue
            }
            let json = try element.parsed()
            let (model, nested) = try decoder.decodeCollectingIdentified(Model.self, from: json, in: session)
            let uid = StoreKey.value(model.uid)
            seen.insert(uid)
            switch try write(element, json: json, digest: digest, uid: uid, model: model, in: table, isStored: stored.contains(uid)) {
            case .inserted:
                summary.inserted += 1
                stored.insert(uid)
            case .updated: summary.updated += 1
            case .unchanged: summary.unchanged += 1
            }
            byDigest[digest] = uid
            for (nestedModel, nestedJSON) in nested {
                try importNested(nestedModel, json: nestedJSON, into: &summary.nested)
            }
        }
        if missing == .delete {
            let delete = try db.cachedStatement(sql: "DELETE FROM \(table.quotedName) WHERE uid = ?")
            for uid in stored where !seen.contains(uid) {
                try journal?.willWrite(table.name, uid: uid, in: db)
                try delete.execute(arguments: [uid])
                summary.deleted += 1
            }
        }
        return summary
    }

    enum Outcome { case inserted, updated, unchanged }

    /// Inserts, updates or leaves one row; a row whose digest differs but whose JSON is equal (keys
    /// in another order, other spacing) is left as it is.
    private func write(
        _ element: ImportElement, json: JSONValue, digest: Data, uid: DatabaseValue, model: Any, in table: StoreTable, isStored: Bool
    ) throws -> Outcome {
        let extra = table.columns.map { $0.value(model) }
        if isStored {
            let body = try Data.fetchOne(db, sql: "SELECT body FROM \(table.quotedName) WHERE uid = ?", arguments: [uid])
            if let body, let storedJSON = try? JSONValue.parse(body), storedJSON == json { return .unchanged }
            try journal?.willWrite(table.name, uid: uid, in: db)
            let assignments = (["body = CAST(? AS TEXT)", "digest = ?", "importedAt = ?"]
                + table.columns.map { "\($0.name.quotedDatabaseIdentifier) = ?" }).joined(separator: ", ")
            let update = try db.cachedStatement(sql: "UPDATE \(table.quotedName) SET \(assignments) WHERE uid = ?")
            try update.execute(arguments: StatementArguments([element.bytes.databaseValue, digest.databaseValue, importedAt.databaseValue] + extra + [uid]))
            return .updated
        }
        let names = (["uid", "body", "digest", "importedAt"] + table.columns.map(\.name)).map(\.quotedDatabaseIdentifier)
        let placeholders = (["?", "CAST(? AS TEXT)", "?", "?"] + table.columns.map { _ in "?" }).joined(separator: ", ")
        try journal?.willWrite(table.name, uid: uid, in: db)
        let insert = try db.cachedStatement(
            sql: "INSERT INTO \(table.quotedName) (\(names.joined(separator: ", "))) VALUES (\(placeholders))")
        try insert.execute(arguments: StatementArguments([uid, element.bytes.databaseValue, digest.databaseValue, importedAt.databaseValue] + extra))
        return .inserted
    }

    /// Stores a nested `Identified` model as its own row.
    private func importNested(_ model: any Identified, json: JSONValue, into summaries: inout [String: ImportSummary]) throws {
        let table = try store.table(forNested: model, in: db)
        let element = try ImportElement(json: json)
        let digest = element.digest
        let uid = StoreKey.value(model.uid)
        let storedDigest = try Data.fetchOne(db, sql: "SELECT digest FROM \(table.quotedName) WHERE uid = ?", arguments: [uid])
        var counts = summaries[table.name] ?? ImportSummary()
        if storedDigest == digest {
            counts.unchanged += 1
        } else {
            switch try write(element, json: json, digest: digest, uid: uid, model: model, in: table, isStored: storedDigest != nil) {
            case .inserted: counts.inserted += 1
            case .updated: counts.updated += 1
            case .unchanged: counts.unchanged += 1
            }
        }
        summaries[table.name] = counts
    }
}
