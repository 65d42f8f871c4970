import GRDB

/// How a model's `uid` is stored: as itself when SQLite can hold it (integers, strings, UUIDs),
/// else as its description.
enum StoreKey {
    static func value(_ uid: some Hashable) -> DatabaseValue {
        if let convertible = uid as? any DatabaseValueConvertible { return convertible.databaseValue }
        return String(describing: uid).databaseValue
    }
}
