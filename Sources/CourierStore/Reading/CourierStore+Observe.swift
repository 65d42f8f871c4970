import Courier
import Foundation
import GRDB

extension CourierStore {
    /// The models a query selects, now and after every change (GRDB's `ValueObservation`).
    ///
    /// ```swift
    /// for try await users in store.observe(User.self, .all.order(Column("userName"))) {
    ///     render(users)
    /// }
    /// ```
    public func observe<Model: Decodable & Identified & Sendable>(
        _ type: Model.Type, _ query: StoreQuery<Model> = .all
    ) -> StoreObservation<[Model]> {
        let decoder = configuration.decoder
        return StoreObservation(path: path) { [self] in
            let table = try await prepared(Model.self)
            let observation = ValueObservation
                .tracking { db in try query.request(table: table.name).fetchAll(db).map(StoredRow.init) }
                .removeDuplicates()
                .map { rows in
                    let session = decoder.makeSession()
                    return try rows.map { row in
                        do {
                            return try decoder.decode(Model.self, from: row.body, in: session)
                        } catch {
                            throw CourierError(
                                .decodingFailed, "The stored \(table.name) with uid \(row.uid) no longer fits the model: \(error)",
                                underlyingError: error)
                        }
                    }
                }
            return observation.values(in: database)
        }
    }

    /// GRDB records a request selects, now and after every change.
    public func observe<Record: FetchableRecord & Sendable>(_ request: QueryInterfaceRequest<Record>) -> StoreObservation<[Record]> {
        StoreObservation(path: path) { [self] in
            ValueObservation.tracking { db in try request.fetchAll(db) }.values(in: database)
        }
    }
}

/// A stored row as an observation compares it.
struct StoredRow: Equatable, Sendable {
    let uid: DatabaseValue
    let body: Data

    init(_ row: Row) {
        uid = row["uid"]
        body = row["body"]
    }
}
