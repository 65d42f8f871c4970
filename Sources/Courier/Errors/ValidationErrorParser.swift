/// Reads the field errors of 400 and 422 bodies, in the shapes the common web frameworks write,
/// into ``ValidationErrors`` (field paths dotted and in the app's naming, the server's kept):
/// - Rails (`{"errors": {"field": ["msg"]}}` and the scaffold's top-level field map), Laravel
///   (`message` + `errors`), ASP.NET Core's `ValidationProblemDetails` (`errors`, PascalCase);
/// - Django REST framework: a top-level field map, nested serializers as objects, list items as
///   arrays (`items.1.quantity`), `non_field_errors` as `base`;
/// - FastAPI / Pydantic: `detail` as an array of `loc`/`msg` (the location `body`, `query`, `path`,
///   `header` or `cookie` dropped from the path);
/// - webargs / marshmallow / Flask-Smorest: `errors` keyed by location (`json`, `query`, …);
/// - Spring (`errors` of `field`/`defaultMessage`), express-validator (`errors` of
///   `path`/`param`/`msg`), NestJS class-validator (`message` as an array: `base`);
/// - JSON:API (`errors` of `source.pointer`/`detail`) and RFC 9457 (`invalid-params` of
///   `name`/`reason`; `errors` of `pointer`/`detail`);
/// - the sample server's `{"error": {"validations": {...}}}`.
///
/// Anything else gives `nil`; the raw body stays on the error. Field paths are followed 32 levels
/// deep and no further, so a hostile body cannot exhaust the stack.
package enum ValidationErrorParser {
    /// How deep field paths are followed.
    static let maximumDepth = 32

    /// The field errors in `body`, or `nil` when it has none of the shapes.
    package static func parse(_ body: JSONValue) -> ValidationErrors? {
        guard body.objectValue != nil else { return nil }
        var found = Collector()
        if let detail = body["detail"]?.arrayValue, detail.contains(where: { $0["loc"] != nil }) {
            found.items(detail)
        } else if let errors = body["errors"] {
            if let byLocation = errors.objectValue, !byLocation.isEmpty, byLocation.keys.allSatisfy(Self.locations.contains) {
                for (_, fields) in byLocation { found.tree(fields, path: []) }
            } else if let list = errors.arrayValue, list.contains(where: { $0.objectValue != nil }) {
                found.items(list)
            } else {
                found.tree(errors, path: [])
            }
        } else if let validations = body["error"]?["validations"] {
            found.tree(validations, path: [])
        } else if let parameters = body["invalid-params"]?.arrayValue {
            found.items(parameters)
        } else if let messages = body["message"]?.arrayValue, messages.allSatisfy({ $0.stringValue != nil }) {
            found.tree(.array(messages), path: [])
        } else if Self.isFieldMap(body, depth: 0) {
            found.tree(body, path: [])
        }
        return found.result
    }

    /// Where webargs and Flask-Smorest say a value came from; `errors` keyed by these is keyed by location.
    static let locations: Set<String> = ["json", "query", "querystring", "form", "headers", "cookies", "files", "view_args", "path", "match_info", "json_or_form"]
    /// Locations FastAPI puts first in `loc`.
    static let fastAPILocations: Set<String> = ["body", "query", "path", "header", "cookie"]
    /// Field names frameworks use for errors not tied to a field.
    static let baseNames: Set<String> = ["non_field_errors", "__all__", "base", "_schema"]

    /// Whether `value` is an object whose every value is a message list or a nested field map (a
    /// top-level field map, as Django REST framework and Rails' scaffold write).
    static func isFieldMap(_ value: JSONValue, depth: Int) -> Bool {
        guard depth < maximumDepth else { return false }
        switch value {
        case .object(let fields):
            return !fields.isEmpty && fields.values.allSatisfy { field in
                if let list = field.arrayValue {
                    return !list.isEmpty && list.allSatisfy { $0.stringValue != nil || isFieldMap($0, depth: depth + 1) || $0.objectValue?.isEmpty == true }
                }
                return isFieldMap(field, depth: depth + 1)
            }
        default:
            return false
        }
    }

    /// Gathers messages under paths.
    struct Collector {
        var fields: [String: [String]] = [:]
        var serverNames: [String: String] = [:]

        var result: ValidationErrors? {
            fields.isEmpty ? nil : ValidationErrors(fields: fields, serverNames: serverNames)
        }

        /// Each component's name in the app's naming, as found so far (bodies repeat the same
        /// names, one per list item or nested object).
        private var propertyNames: [String: String] = [:]

        mutating func add(_ message: String, at path: [String]) {
            add([message], at: path)
        }

        mutating func add(_ messages: [String], at path: [String]) {
            guard !messages.isEmpty else { return }
            let name: String
            if path.isEmpty || (path.count == 1 && ValidationErrorParser.baseNames.contains(path[0])) {
                name = "base"
            } else {
                var parts: [String] = []
                for component in path { parts.append(propertyName(component)) }
                name = parts.joined(separator: ".")
                let server = path.joined(separator: ".")
                if name != server { serverNames[name] = server }
            }
            fields[name, default: []].append(contentsOf: messages)
        }

        /// A path component in the app's naming; list indexes stay as they are.
        private mutating func propertyName(_ component: String) -> String {
            if component.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) { return component }
            if let known = propertyNames[component] { return known }
            let name = KeyMapping.propertyName(for: component)
            propertyNames[component] = name
            return name
        }

        /// A tree of messages: strings, lists of them, objects of fields, lists of items.
        mutating func tree(_ value: JSONValue, path: [String]) {
            guard path.count < ValidationErrorParser.maximumDepth else { return }
            switch value {
            case .string(let message):
                add(message, at: path)
            case .array(let values):
                add(values.compactMap(\.stringValue), at: path)
                for (index, element) in values.enumerated() where element.stringValue == nil {
                    tree(element, path: path + [String(index)])
                }
            case .object(let object):
                for (key, field) in object.sorted(by: { $0.key < $1.key }) {
                    // ASP.NET and Laravel write nested fields as one dotted key (`Address.ZipCode`).
                    tree(field, path: path + Self.dotted(key))
                }
            default:
                break
            }
        }

        /// A list of error objects, each naming its field in one of the frameworks' ways.
        mutating func items(_ items: [JSONValue]) {
            for item in items {
                guard let message = Self.message(of: item) else { continue }
                add(message, at: Self.path(of: item))
            }
        }

        static func message(of item: JSONValue) -> String? {
            for key in ["defaultMessage", "msg", "message", "detail", "reason", "title"] {
                if let text = item[key]?.stringValue, !text.isEmpty { return text }
            }
            return nil
        }

        static func path(of item: JSONValue) -> [String] {
            if let location = item["loc"]?.arrayValue {
                var parts = location.compactMap { part in part.stringValue ?? part.intValue.map(String.init) }
                if let first = parts.first, ValidationErrorParser.fastAPILocations.contains(first) { parts.removeFirst() }
                return parts
            }
            for key in ["field", "path", "param", "property", "name"] {
                if let name = item[key]?.stringValue, !name.isEmpty { return dotted(name) }
            }
            if let pointer = item["pointer"]?.stringValue ?? item["source"]?["pointer"]?.stringValue {
                return pointerPath(pointer)
            }
            if let parameter = item["source"]?["parameter"]?.stringValue { return dotted(parameter) }
            return []
        }

        /// `items[1].quantity`, `$.items[1].quantity` → `items`, `1`, `quantity`.
        static func dotted(_ name: String) -> [String] {
            var name = Substring(name)
            if name.hasPrefix("$.") { name = name.dropFirst(2) }
            guard name.utf8.contains(UInt8(ascii: "[")) else { return name.split(separator: ".").map(String.init) }
            return name.replacingOccurrences(of: "[", with: ".").replacingOccurrences(of: "]", with: "")
                .split(separator: ".").map(String.init)
        }

        /// A JSON pointer (`/data/attributes/address/city`, `#/age`) as a path, JSON:API's
        /// `data/attributes` (or `data/relationships`) prefix dropped.
        static func pointerPath(_ pointer: String) -> [String] {
            var parts = pointer.split(separator: "/").map { String($0).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
            if parts.first == "#" { parts.removeFirst() }
            if parts.first == "data" { parts.removeFirst() }
            if parts.first == "attributes" || parts.first == "relationships" { parts.removeFirst() }
            return parts
        }
    }
}
