import Courier
import Foundation
import GRDB

extension CourierStore {
    /// Opens the pool, reading the schema once so a file that is not SQLite fails here, with its
    /// path, and not at the first import.
    static func openPool(at path: URL, configuration: StoreConfiguration) throws(CourierError) -> DatabasePool {
        do {
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw CourierError(
                .store, "The folder for the store at \(path.path) could not be created: \(error.localizedDescription)",
                underlyingError: error)
        }
        do {
            return try openAndCheck(path, configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
            guard configuration.recreatesUnreadableFile else {
                throw CourierError(
                    .store,
                    "The file at \(path.path) is not a readable SQLite database (SQLite: \(error.message ?? "\(error.resultCode)")). "
                        + "Nothing was deleted: move the file away, or open the store with recreatesUnreadableFile to replace it with an empty one.",
                    underlyingError: error)
            }
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path.path + suffix)
            }
            do {
                return try openAndCheck(path, configuration)
            } catch {
                throw CourierError.store(error, path: path, doing: "be created again")
            }
        } catch {
            throw CourierError.store(error, path: path, doing: "be opened")
        }
    }

    private static func openAndCheck(_ path: URL, _ configuration: StoreConfiguration) throws -> DatabasePool {
        let pool = try DatabasePool(path: path.path, configuration: configuration.grdbConfiguration)
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        return pool
    }
}
