import GRDB

/// An indexed column of a model's table, for filtering and sorting through GRDB's query interface
/// (`Column("userName") == "ana"`); see ``CourierStore/index(_:_:)``.
///
/// ```swift
/// try await store.index(User.self, [StoreColumn("userName") { $0.userName }])
/// ```
public struct StoreColumn<Model>: Sendable {
    /// The column's name.
    public let name: String
    let value: @Sendable (Model) -> DatabaseValue

    /// A column called `name` holding `value(model)` for each stored model.
    public init<Value: DatabaseValueConvertible & Sendable>(_ name: String, _ value: @escaping @Sendable (Model) -> Value) {
        self.name = name
        self.value = { value($0).databaseValue }
    }

    var erased: ErasedColumn {
        let value = value
        return ErasedColumn(name: name) { model in (model as? Model).map(value) ?? .null }
    }
}

/// A ``StoreColumn`` whatever its model type, as the store keeps them.
struct ErasedColumn: Sendable {
    let name: String
    let value: @Sendable (Any) -> DatabaseValue
}
