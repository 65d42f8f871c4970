import Courier
import Foundation
import GRDB

extension CourierStore {
    /// The stored model with `uid`, or `nil`.
    /// - Throws: ``CourierError/Kind/decodingFailed`` when the stored JSON no longer fits the model,
    ///   ``CourierError/Kind/store`` when SQLite fails.
    public func model<Model: Decodable & Identified & Sendable>(_ type: Model.Type, uid: Model.UID) async throws(CourierError) -> Model? {
        try await models(type, .all.filter(Column("uid") == StoreKey.value(uid))).first
    }

    /// The stored models the query selects (all of them, in the order they were first stored, by
    /// default).
    public func models<Model: Decodable & Identified & Sendable>(
        _ type: Model.Type, _ query: StoreQuery<Model> = .all
    ) async throws(CourierError) -> [Model] {
        let decoder = configuration.decoder
        do {
            let table = try await prepared(Model.self)
            return try await database.read { db in
                try Self.decode(Model.self, rows: query.request(table: table.name).fetchAll(db), decoder: decoder)
            }
        } catch {
            throw CourierError.store(error, path: path, doing: "read \(StoreTable.name(of: Model.self)) objects")
        }
    }

    /// How many models the query selects.
    public func count<Model: Decodable & Identified & Sendable>(
        _ type: Model.Type, _ query: StoreQuery<Model> = .all
    ) async throws(CourierError) -> Int {
        do {
            let table = try await prepared(Model.self)
            return try await database.read { db in try query.request(table: table.name).fetchCount(db) }
        } catch {
            throw CourierError.store(error, path: path, doing: "count \(StoreTable.name(of: Model.self)) objects")
        }
    }

    /// GRDB records the request selects (`Player.all().order(Column("score").desc)`).
    public func records<Record: FetchableRecord & Sendable>(_ request: QueryInterfaceRequest<Record>) async throws(CourierError) -> [Record] {
        do {
            return try await database.read { db in try request.fetchAll(db) }
        } catch {
            throw CourierError.store(error, path: path, doing: "read records")
        }
    }

    /// `Model`'s table, created first (once per process) when needed, so reads never take the
    /// writer otherwise.
    func prepared<Model: Decodable & Sendable>(_ type: Model.Type) async throws -> StoreTable {
        let name = StoreTable.name(of: type)
        if preparedTables.withLock({ $0.contains(name) }) {
            return StoreTable(name: name, columns: registeredColumns.withLock { $0[name] ?? [] })
        }
        return try await database.write { db in try self.table(for: Model.self, in: db) }
    }

    /// Models from `(uid, body)` rows, failing with the uid of a row that does not decode.
    static func decode<Model: Decodable>(_ type: Model.Type, rows: [Row], decoder: ModelDecoder) throws -> [Model] {
        let session = decoder.makeSession()
        return try rows.map { row in
            let body: Data = row["body"]
            do {
                return try decoder.decode(Model.self, from: body, in: session)
            } catch {
                let uid: DatabaseValue = row["uid"]
                var failure = CourierError(
                    .decodingFailed,
                    "The stored \(StoreTable.name(of: Model.self)) with uid \(uid) no longer fits the model: \(error)",
                    underlyingError: error)
                failure.keyPath = (error as? ModelDecodingError)?.keyPath
                failure.classification = failure.defaultClassification
                throw failure
            }
        }
    }
}
