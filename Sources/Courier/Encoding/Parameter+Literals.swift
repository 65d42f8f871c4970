import Foundation

extension Parameter: ExpressibleByStringLiteral {
    /// A ``string(_:)`` value.
    public init(stringLiteral value: String) { self = .string(value) }
}

/// Lets a string with interpolations be a parameter: `["note": "upload \(index)"]`.
extension Parameter: ExpressibleByStringInterpolation {}

extension Parameter: ExpressibleByIntegerLiteral {
    /// An ``int(_:)`` value.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension Parameter: ExpressibleByFloatLiteral {
    /// A ``double(_:)`` value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension Parameter: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)`` value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Parameter: ExpressibleByNilLiteral {
    /// The ``null`` value.
    public init(nilLiteral: ()) { self = .null }
}

extension Parameter: ExpressibleByArrayLiteral {
    /// An ``array(_:)`` value.
    public init(arrayLiteral elements: Parameter...) { self = .array(elements) }
}

extension Parameter: ExpressibleByDictionaryLiteral {
    /// An ``object(_:)`` value. A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, Parameter)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
