import Foundation

/// Encodes parameters as a query string or form body.
///
/// Rules, chosen to match what Rails, PHP and most servers parse:
/// - keys are sorted, so the same parameters always give the same string;
/// - nested objects use brackets: `user[name]=Ana`; arrays use empty brackets: `tags[]=a&tags[]=b`;
///   objects inside arrays: `items[][id]=1`;
/// - `true`/`false` for Booleans; ``Parameter/null`` gives an empty value (`key=`);
/// - every byte outside RFC 3986's unreserved set (`A–Z a–z 0–9 - . _ ~`) is percent-encoded,
///   brackets and spaces included (space as `%20`);
/// - binary values cannot go into a query and fail with an error.
enum QueryStringEncoder {
    /// Encodes `parameters` as `key=value` pairs joined by `&`.
    static func encode(_ parameters: Parameters) throws -> String {
        if parameters.isEmpty { return "" }
        var output: [UInt8] = []
        output.reserveCapacity(32 * parameters.count)
        try append(parameters, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `parameters`, encoded as ``encode(_:)`` does, to `output` (a URL being built).
    static func append(_ parameters: Parameters, to output: inout [UInt8]) throws {
        let start = output.count
        // One parameter (the usual page number or id) needs no sorting.
        if parameters.count == 1, let (key, value) = parameters.first {
            try append(value, key: key, after: start, to: &output)
        } else {
            for (key, value) in parameters.sorted(by: { $0.key < $1.key }) { try append(value, key: key, after: start, to: &output) }
        }
    }

    /// Appends the pairs of the top-level parameter `key`. A plain value's name is encoded straight
    /// into `output`, with no array of its own.
    private static func append(_ value: Parameter, key: String, after start: Int, to output: inout [UInt8]) throws {
        guard let text = try text(of: value, displayName: key) else {
            var name = PercentEncoding.Bytes()
            PercentEncoding.appendComponent(key, to: &name)
            return try append(value, name: name, displayName: key, after: start, to: &output)
        }
        if output.count > start { output.append(UInt8(ascii: "&")) }
        PercentEncoding.appendComponent(key, to: &output)
        output.append(UInt8(ascii: "="))
        PercentEncoding.appendComponent(text, to: &output)
    }

    /// Appends `name=value` pairs for `value` to `output`; `name` is already percent-encoded
    /// (nested names are built from encoded pieces, so brackets end up as `%5B` and `%5D`).
    private static func append(
        _ value: Parameter, name: PercentEncoding.Bytes, displayName: String, after start: Int, to output: inout [UInt8]
    ) throws {
        switch value {
        case .object(let values):
            for (key, element) in values.sorted(by: { $0.key < $1.key }) {
                var nested = name
                PercentEncoding.appendComponent("[", to: &nested)
                PercentEncoding.appendComponent(key, to: &nested)
                PercentEncoding.appendComponent("]", to: &nested)
                try append(element, name: nested, displayName: "\(displayName)[\(key)]", after: start, to: &output)
            }
        case .array(let values):
            var nested = name
            PercentEncoding.appendComponent("[]", to: &nested)
            for element in values { try append(element, name: nested, displayName: "\(displayName)[]", after: start, to: &output) }
        default:
            if let text = try text(of: value, displayName: displayName) { pair(name, text, after: start, to: &output) }
        }
    }

    /// The text of a plain value, before encoding; `nil` for an object or an array.
    /// - Throws: for a binary value or a number that is not finite.
    private static func text(of value: Parameter, displayName: String) throws -> String? {
        switch value {
        case .object, .array: return nil
        case .string(let string): return string
        case .int(let int): return String(int)
        case .double(let double):
            guard double.isFinite else { throw ParameterEncodingError("the parameter \(displayName) is \(double)") }
            return JSONWriter.format(double)
        case .bool(let bool): return bool ? "true" : "false"
        case .null: return ""
        case .data, .file:
            throw ParameterEncodingError("the parameter \(displayName) is binary, which cannot go into a URL or form body")
        }
    }

    /// Appends `name=value`, after a `&` when `output` has pairs past `start` already.
    private static func pair(_ name: PercentEncoding.Bytes, _ value: String, after start: Int, to output: inout [UInt8]) {
        if output.count > start { output.append(UInt8(ascii: "&")) }
        output.append(contentsOf: name)
        output.append(UInt8(ascii: "="))
        PercentEncoding.appendComponent(value, to: &output)
    }
}
