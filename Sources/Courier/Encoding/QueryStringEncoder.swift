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
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            var name = PercentEncoding.Bytes()
            PercentEncoding.appendComponent(key, to: &name)
            try append(value, name: name, displayName: key, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `name=value` pairs for `value` to `output`; `name` is already percent-encoded
    /// (nested names are built from encoded pieces, so brackets end up as `%5B` and `%5D`).
    private static func append(_ value: Parameter, name: PercentEncoding.Bytes, displayName: String, to output: inout [UInt8]) throws {
        switch value {
        case .object(let values):
            for (key, element) in values.sorted(by: { $0.key < $1.key }) {
                var nested = name
                PercentEncoding.appendComponent("[", to: &nested)
                PercentEncoding.appendComponent(key, to: &nested)
                PercentEncoding.appendComponent("]", to: &nested)
                try append(element, name: nested, displayName: "\(displayName)[\(key)]", to: &output)
            }
        case .array(let values):
            var nested = name
            PercentEncoding.appendComponent("[]", to: &nested)
            for element in values { try append(element, name: nested, displayName: "\(displayName)[]", to: &output) }
        case .string(let string): pair(name, string, to: &output)
        case .int(let int): pair(name, String(int), to: &output)
        case .double(let double):
            guard double.isFinite else { throw ParameterEncodingError("the parameter \(displayName) is \(double)") }
            pair(name, JSONWriter.format(double), to: &output)
        case .bool(let bool): pair(name, bool ? "true" : "false", to: &output)
        case .null: pair(name, "", to: &output)
        case .data, .file:
            throw ParameterEncodingError("the parameter \(displayName) is binary, which cannot go into a URL or form body")
        }
    }

    private static func pair(_ name: PercentEncoding.Bytes, _ value: String, to output: inout [UInt8]) {
        if !output.isEmpty { output.append(UInt8(ascii: "&")) }
        output.append(contentsOf: name)
        output.append(UInt8(ascii: "="))
        PercentEncoding.appendComponent(value, to: &output)
    }
}
