import GRDB

/// Which stored models to read, in which order: GRDB's query interface over a model's table.
///
/// Filter and sort on the store's own columns (`uid`, `importedAt`), on indexed columns added with
/// ``CourierStore/index(_:_:)``, or on the JSON body with SQLite's JSON functions:
///
/// ```swift
/// let recent = StoreQuery<User>.all
///     .filter(Column("isFirstLogin") == false)
///     .order(Column("userName"))
///     .limit(20)
/// ```
///
/// Without an order, models come in the order they were first stored.
public struct StoreQuery<Model>: Sendable {
    var filters: [SQLExpression] = []
    var orderings: [SQLOrdering] = []
    var limit: (count: Int, offset: Int?)?

    /// Every stored model.
    public static var all: StoreQuery { StoreQuery() }

    /// Only the models matching `predicate` (combined with earlier filters by AND).
    public func filter(_ predicate: some SQLSpecificExpressible) -> StoreQuery {
        var copy = self
        copy.filters.append(predicate.sqlExpression)
        return copy
    }

    /// Only the models matching an SQL condition, such as
    /// `"json_extract(body, '$.user_name') = ?"` with `arguments: ["ana"]`.
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> StoreQuery {
        filter(SQL(sql: sql, arguments: arguments))
    }

    /// Sorted by `terms` (replacing an earlier order).
    public func order(_ terms: any SQLOrderingTerm...) -> StoreQuery {
        var copy = self
        copy.orderings = terms.map(\.sqlOrdering)
        return copy
    }

    /// At most `count` models, after skipping `offset`.
    public func limit(_ count: Int, offset: Int? = nil) -> StoreQuery {
        var copy = self
        copy.limit = (count, offset)
        return copy
    }

    /// The GRDB request selecting `uid` and `body` from `table`.
    func request(table: String) -> QueryInterfaceRequest<Row> {
        var request = Table(table).select(Column("uid"), Column("body"))
        for filter in filters { request = request.filter(filter) }
        request = orderings.isEmpty ? request.order(Column.rowID) : request.order(orderings)
        if let limit { request = request.limit(limit.count, offset: limit.offset) }
        return request
    }
}
