/// Reads the common shapes of 422 bodies into ``ValidationErrors``:
/// - Rails: `{"errors": {"field": ["msg"]}}` (a single string per field is accepted too);
/// - nested: `{"error": {"validations": {"field": ["msg"]}}}`;
/// - JSON:API: `{"errors": [{"source": {"pointer": "/data/attributes/field"}, "detail": "msg"}]}`;
/// - RFC 9457 problem details: `{"invalid-params": [{"name": "field", "reason": "msg"}]}`.
/// Anything else gives `nil`; the raw body stays on the error.
public enum ValidationErrorParser {
    /// The field errors in `body`, or `nil` when it has none of the shapes.
    public static func parse(_ body: JSONValue) -> ValidationErrors? {
        if let fields = body["errors"]?.objectValue { return fieldMap(fields) }
        if let fields = body["error"]?["validations"]?.objectValue { return fieldMap(fields) }
        if let items = body["errors"]?.arrayValue { return jsonAPI(items) }
        if let items = body["invalid-params"]?.arrayValue { return problemDetails(items) }
        return nil
    }

    private static func fieldMap(_ fields: [String: JSONValue]) -> ValidationErrors? {
        var result: [String: [String]] = [:]
        for (field, value) in fields {
            if let text = value.stringValue {
                result[field] = [text]
            } else if let list = value.arrayValue {
                result[field] = list.compactMap(\.stringValue)
            }
        }
        return result.isEmpty ? nil : ValidationErrors(fields: result)
    }

    private static func jsonAPI(_ items: [JSONValue]) -> ValidationErrors? {
        var result: [String: [String]] = [:]
        for item in items {
            guard let message = item["detail"]?.stringValue ?? item["title"]?.stringValue else { continue }
            let pointer = item["source"]?["pointer"]?.stringValue ?? item["source"]?["parameter"]?.stringValue
            let field = pointer.flatMap { $0.split(separator: "/").last.map(String.init) } ?? "base"
            result[field, default: []].append(message)
        }
        return result.isEmpty ? nil : ValidationErrors(fields: result)
    }

    private static func problemDetails(_ items: [JSONValue]) -> ValidationErrors? {
        var result: [String: [String]] = [:]
        for item in items {
            guard let name = item["name"]?.stringValue else { continue }
            result[name, default: []].append(item["reason"]?.stringValue ?? "is invalid")
        }
        return result.isEmpty ? nil : ValidationErrors(fields: result)
    }
}
