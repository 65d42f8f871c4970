import Courier
import Foundation
import GRDB

/// How a ``CourierStore`` is opened and reads its models.
public struct StoreConfiguration: Sendable {
    /// Decodes stored and imported JSON into models, with the seed's key rules and conversions.
    public var decoder = ModelDecoder()
    /// Your migrations, for GRDB record types kept in your own tables; run when the store opens
    /// and after ``CourierStore/erase()``.
    public var migrator: DatabaseMigrator?
    /// Replace a file that is not a readable SQLite database with an empty store. Off by default:
    /// opening such a file fails with an error naming it, and nothing is deleted.
    public var recreatesUnreadableFile = false
    /// How long an import waits for another process holding the database before failing.
    public var busyTimeout: TimeInterval = 10

    /// Creates a configuration.
    public init(decoder: ModelDecoder = ModelDecoder(), migrator: DatabaseMigrator? = nil, recreatesUnreadableFile: Bool = false) {
        self.decoder = decoder
        self.migrator = migrator
        self.recreatesUnreadableFile = recreatesUnreadableFile
    }

    /// GRDB's configuration: a busy timeout, and deleted content overwritten on disk
    /// (`secure_delete`), so an erased user's data does not linger in free pages.
    var grdbConfiguration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return configuration
    }
}
