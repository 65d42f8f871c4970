/// A model that names its own table in a ``CourierStore`` (by default the table is named after the
/// type, as `String(describing:)` spells it).
public protocol StoreNamed {
    /// The table's name.
    static var storeTableName: String { get }
}
