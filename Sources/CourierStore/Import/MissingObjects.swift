/// What an import does with stored objects the response does not list.
public enum MissingObjects: Sendable, Hashable {
    /// Keep them: the response is a page or a partial update.
    case keep
    /// Delete them: the response is the whole collection ("replace this collection" sync).
    /// Nested models stored as their own rows are kept.
    case delete
}
