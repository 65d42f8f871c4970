/// Field errors from a 422 response, whatever shape the server used.
public struct ValidationErrors: Sendable, Hashable, CustomStringConvertible {
    /// Messages per field, in the order the server gave them. Errors not tied to a field are under `"base"`.
    public var fields: [String: [String]]

    /// Creates validation errors.
    public init(fields: [String: [String]]) { self.fields = fields }

    /// The messages for `field`.
    public func messages(for field: String) -> [String] { fields[field] ?? [] }

    /// Every message as `field message`, fields sorted.
    public var messages: [String] {
        fields.keys.sorted().flatMap { field in fields[field]!.map { field == "base" ? $0 : "\(field) \($0)" } }
    }

    /// The messages joined by `; `.
    public var description: String { messages.joined(separator: "; ") }
}
