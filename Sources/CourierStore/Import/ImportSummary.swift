/// What an import changed.
public struct ImportSummary: Sendable, Hashable, CustomStringConvertible {
    /// Objects that were not stored before.
    public var inserted = 0
    /// Stored objects whose content changed, rewritten.
    public var updated = 0
    /// Stored objects that arrived unchanged; they were not rewritten.
    public var unchanged = 0
    /// Stored objects deleted because the response did not list them (``MissingObjects/delete``).
    public var deleted = 0
    /// The same counts for nested `Identified` models stored as their own rows, by table.
    public var nested: [String: ImportSummary] = [:]
    /// Whether the import was skipped because the response repeated what was already imported:
    /// a `304 Not Modified`, or a network answer identical to the cached one just imported.
    public var notModified = false

    /// Creates an empty summary.
    public init() {}

    /// Whether anything in the database changed.
    public var changedSomething: Bool {
        inserted + updated + deleted > 0 || nested.values.contains { $0.changedSomething }
    }

    /// `inserted 3, updated 1, unchanged 6, deleted 0`, and nested tables' counts.
    public var description: String {
        var text = "inserted \(inserted), updated \(updated), unchanged \(unchanged), deleted \(deleted)"
        for (table, counts) in nested.sorted(by: { $0.key < $1.key }) { text += "; \(table): \(counts)" }
        if notModified { text += " (not modified)" }
        return text
    }
}
