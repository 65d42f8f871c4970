import Courier
import Foundation
import GRDB

/// A local SQLite database that API responses are imported into, so an app reads and shows local
/// data and the network only refreshes it (seed 004's `CoreDataHelper`, on GRDB).
///
/// ```swift
/// let store = try CourierStore(path: directory.appending(path: "images.sqlite"))
/// let summary = try await client.send(Request<Data>(.get, "images"), into: store, as: Image.self, root: "images")
/// for try await images in store.observe(Image.self) { show(images) }
/// ```
///
/// Two kinds of model work with the same calls:
/// - any `Decodable & Identified` model, with no schema code: one table per type (named after the
///   type, or ``StoreNamed/storeTableName``), one row per object keyed by `uid`, holding the
///   object's JSON as the API sent it (`body`), a digest of it, and the import time. Add indexed
///   columns to filter and sort on with ``index(_:_:)``.
/// - GRDB records (`FetchableRecord & PersistableRecord`) in tables made by your own
///   `DatabaseMigrator` (``StoreConfiguration/migrator``).
///
/// The file is a GRDB `DatabasePool` in WAL mode: reads run beside an import, imports run one at
/// a time, and a busy database is waited for, never reported. Every import is one transaction.
public final class CourierStore: Sendable {
    /// The database file; `nil` for an in-memory store.
    public let path: URL?
    /// GRDB's handle on the database, for queries the helpers here do not cover.
    public let database: any DatabaseWriter
    /// How the store was opened.
    public let configuration: StoreConfiguration
    /// Indexed columns registered with ``index(_:_:)``, by table.
    let registeredColumns = Locked<[String: [ErasedColumn]]>([:])
    /// Tables known to exist with their registered columns, so imports skip the schema check.
    let preparedTables = Locked<Set<String>>([])
    /// Logout handlers this store added, removed when the store goes.
    let logoutRegistrations = Locked<[(client: WeakClient, id: Int)]>([])

    /// Opens (or creates) the store at `path`.
    /// - Throws: ``CourierError/Kind/store`` naming the path when the file is not a readable
    ///   SQLite database (nothing is deleted unless ``StoreConfiguration/recreatesUnreadableFile``
    ///   is set), or when the migrator fails.
    public convenience init(path: URL, configuration: StoreConfiguration = StoreConfiguration()) throws(CourierError) {
        let pool = try Self.openPool(at: path, configuration: configuration)
        try self.init(database: pool, path: path, configuration: configuration)
    }

    /// A store that lives in memory only, for tests and previews.
    public static func inMemory(configuration: StoreConfiguration = StoreConfiguration()) throws(CourierError) -> CourierStore {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: configuration.grdbConfiguration)
        } catch {
            throw CourierError.store(error, path: nil, doing: "open an in-memory database")
        }
        return try CourierStore(database: queue, path: nil, configuration: configuration)
    }

    private init(database: any DatabaseWriter, path: URL?, configuration: StoreConfiguration) throws(CourierError) {
        self.database = database
        self.path = path
        self.configuration = configuration
        try migrate()
    }

    deinit {
        for registration in logoutRegistrations.withLock({ $0 }) {
            registration.client.value?.removeLogoutHandler(registration.id)
        }
    }

    /// Runs the configured migrator, if any.
    func migrate() throws(CourierError) {
        guard let migrator = configuration.migrator else { return }
        do {
            try migrator.migrate(database)
        } catch {
            throw CourierError.store(error, path: path, doing: "apply its migrations")
        }
    }
}

/// A client held weakly, so a store does not keep it alive.
struct WeakClient: Sendable {
    weak var value: APIClient?
}
