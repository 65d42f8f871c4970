/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Setting a value through the subscript replaces every field of that name; ``add(name:value:)``
/// keeps existing ones, for headers that may repeat.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field name, as given.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates an empty header list.
    public init() { fields = [] }

    /// Makes room for `count` fields in all, so that adding them one by one does not grow the list
    /// several times.
    package mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    /// Creates headers from a dictionary; fields are ordered by name so the result is stable.
    public init(_ dictionary: [String: String]) {
        fields = dictionary.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) }
    }

    /// Creates headers from a literal such as `["Accept": "application/json"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value for `name` (case-insensitive), or `nil`. Setting replaces every field of that
    /// name; setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            guard let newValue else { return remove(name) }
            guard let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else {
                return fields.append(Field(name: name, value: newValue))
            }
            fields[index].value = newValue
            let rest = fields[(index + 1)...].filter { !$0.name.caseInsensitiveEquals(name) }
            fields.replaceSubrange((index + 1)..., with: rest)
        }
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        for field in fields where field.name.caseInsensitiveEquals(name) { values.append(field.value) }
        return values
    }

    /// The value of the one field named `name` (case-insensitive); `nil` when there is none or
    /// more than one. One pass, no array.
    package func onlyValue(for name: String) -> String? {
        var found: String?
        for field in fields where field.name.caseInsensitiveEquals(name) {
            guard found == nil else { return nil }
            found = field.value
        }
        return found
    }

    /// Whether a field named `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// ``contains(_:)`` for the response path, where most answers lack the field: the fields are
    /// read in place (no copy of each), and a name of another length costs one comparison.
    package func containsField(named name: String) -> Bool {
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { buffer in
            for index in buffer.indices where buffer[index].name.utf8.count == length && buffer[index].name.caseInsensitiveEquals(name) {
                return true
            }
            return false
        }
    }

    /// Appends a field, keeping existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Adds `cookies` (a `Cookie` field's value) after the cookies already in the `Cookie` field, in
    /// the one field RFC 6265bis allows.
    package mutating func appendCookies(_ cookies: String) {
        guard let own = self["Cookie"], !own.isEmpty else {
            remove("Cookie")
            return add(name: "Cookie", value: cookies)
        }
        self["Cookie"] = own + "; " + cookies
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Sets every field of `other`, replacing fields of the same names here.
    mutating func merge(_ other: HTTPHeaders) {
        // Most requests bring no headers of their own, or replace into an empty list.
        if other.fields.isEmpty { return }
        if fields.isEmpty { return fields = other.fields }
        for name in Set(other.fields.map { $0.name.lowercased() }) { remove(name) }
        fields.append(contentsOf: other.fields)
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The fields as `[Name: value, …]` with the values of `sensitive` names (case-insensitive)
    /// replaced by `<redacted>`, for logs.
    func redacted(_ sensitive: [String]) -> String {
        "[" + fields.map { field in
            sensitive.contains { $0.caseInsensitiveEquals(field.name) } ? "\(field.name): <redacted>" : "\(field.name): \(field.value)"
        }.joined(separator: ", ") + "]"
    }

    /// The fields as `Name: value` lines.
    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }
}

extension String {
    /// ASCII case-insensitive equality without allocating (header names are ASCII tokens).
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Native strings are contiguous: compare their buffers directly (the generic zip of two
        // UTF-8 views costs hundreds of instructions per call).
        let fast = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                for index in 0..<mine.count where !Self.sameLetter(mine[index], theirs[index]) { return false }
                return true
            }
        }
        if let fast, let result = fast { return result }
        return zip(utf8, other.utf8).allSatisfy { Self.sameLetter($0, $1) }
    }

    /// Whether two bytes are equal, or the same ASCII letter in either case.
    private static func sameLetter(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }
}

extension HTTPHeaders {
    /// The fields that carry credentials: the one list of them. A client adds its own
    /// authentication headers (and its redirect policy's) and never logs these fields, keeps only a
    /// digest of them in cache keys, and drops them on a redirect to another origin; cassettes
    /// redact them.
    @usableFromInline package static let credentialFields = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
}
