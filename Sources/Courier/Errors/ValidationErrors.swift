/// Field errors from a 400 or 422 response, whatever shape the server used.
public struct ValidationErrors: Sendable, Hashable, CustomStringConvertible {
    /// Messages per field, in the order the server gave them. Fields are in the app's naming,
    /// nested ones dotted (`address.zipCode`, `items.1.quantity`); errors not tied to a field are
    /// under `"base"`.
    public var fields: [String: [String]]
    /// The server's name of each field whose name in ``fields`` differs (`address.zipCode` →
    /// `address.zip_code`), to send it back or to match the server's documentation.
    public var serverNames: [String: String]

    /// Creates validation errors; `serverNames` for fields whose names differ from the server's.
    public init(fields: [String: [String]], serverNames: [String: String] = [:]) {
        self.fields = fields
        self.serverNames = serverNames
    }

    /// The messages for `field`, by its name in ``fields`` or the server's.
    public func messages(for field: String) -> [String] {
        if let messages = fields[field] { return messages }
        return serverNames.first { $0.value == field }.flatMap { fields[$0.key] } ?? []
    }

    /// Every message as `field message`, fields sorted.
    public var messages: [String] {
        fields.keys.sorted().flatMap { field in fields[field, default: []].map { field == "base" ? $0 : "\(field) \($0)" } }
    }

    /// The first `limit` of ``messages`` joined by `; `, and how many more there are: a sentence
    /// for a user.
    public func summary(limit: Int = 3) -> String {
        let all = messages
        let shown = all.prefix(max(1, limit)).joined(separator: "; ")
        return all.count > max(1, limit) ? "\(shown); and \(all.count - max(1, limit)) more" : shown
    }

    /// The messages joined by `; `.
    public var description: String { messages.joined(separator: "; ") }
}
