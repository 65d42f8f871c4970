import Courier
import Foundation
import GRDB

extension CourierStore {
    /// The store of the user signed in to `client`: one file per user in `directory`, named by
    /// ``APIClient/userScope`` (`public.sqlite` when signed out), so one user never reads another's
    /// data. With `erasesOnLogout`, ``APIClient/logout()`` erases this user's store.
    ///
    /// ```swift
    /// let store = try CourierStore.forUser(of: client, in: applicationSupport.appending(path: "Stores"))
    /// ```
    public static func forUser(
        of client: APIClient, in directory: URL, configuration: StoreConfiguration = StoreConfiguration(), erasesOnLogout: Bool = true
    ) throws(CourierError) -> CourierStore {
        let scope = client.userScope
        let store = try CourierStore(path: directory.appending(path: "\(scope).sqlite"), configuration: configuration)
        if erasesOnLogout { store.erasesOnLogout(of: client, onlyFor: scope) }
        return store
    }

    /// Makes ``APIClient/logout()`` on `client` erase this store (for a store shared by whoever
    /// signs in). Lasts as long as this store object.
    public func erasesOnLogout(of client: APIClient) {
        erasesOnLogout(of: client, onlyFor: nil)
    }

    private func erasesOnLogout(of client: APIClient, onlyFor scope: String?) {
        let id = client.addLogoutHandler { [weak self] (leaving: String) throws(CourierError) in
            guard let self, scope == nil || scope == leaving else { return }
            try self.erase()
        }
        logoutRegistrations.withLock { $0.append((WeakClient(value: client), id)) }
    }

    /// Deletes every row of every table (the store's and your migrated ones) and the body files
    /// of its ``Outbox``, and empties the write-ahead log; observers see empty results. Deleted
    /// content is overwritten on disk (`secure_delete`), so nothing of it stays in the file.
    public func erase() throws(CourierError) {
        do {
            try database.writeWithoutTransaction { db in
                try db.inTransaction {
                    let tables = try String.fetchAll(db, sql: """
                        SELECT name FROM sqlite_master WHERE type = 'table'
                        AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                        """)
                    for table in tables { try db.execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)") }
                    return .commit
                }
                if path != nil { try db.checkpoint(.truncate) }
            }
            // The outbox's body files (uploads the user made while offline) go with its entries.
            if let path { try? FileManager.default.removeItem(at: OutboxBodies.directory(of: path)) }
        } catch {
            throw CourierError.store(error, path: path, doing: "be erased")
        }
    }
}
