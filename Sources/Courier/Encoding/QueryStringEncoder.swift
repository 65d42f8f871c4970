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
public enum QueryStringEncoder {
    /// Encodes `parameters` as `key=value` pairs joined by `&`.
    public static func encode(_ parameters: Parameters) throws -> String {
        var pairs: [String] = []
        for key in parameters.keys.sorted() {
            try append(parameters[key]!, name: key, to: &pairs)
        }
        return pairs.joined(separator: "&")
    }

    private static func append(_ value: Parameter, name: String, to pairs: inout [String]) throws {
        switch value {
        case .object(let values):
            for key in values.keys.sorted() {
                try append(values[key]!, name: "\(name)[\(key)]", to: &pairs)
            }
        case .array(let values):
            for element in values { try append(element, name: "\(name)[]", to: &pairs) }
        case .string(let string): pairs.append(pair(name, string))
        case .int(let int): pairs.append(pair(name, String(int)))
        case .double(let double):
            guard double.isFinite else { throw ParameterEncodingError("the parameter \(name) is \(double)") }
            pairs.append(pair(name, JSONWriter.format(double)))
        case .bool(let bool): pairs.append(pair(name, bool ? "true" : "false"))
        case .null: pairs.append(pair(name, ""))
        case .data, .file:
            throw ParameterEncodingError("the parameter \(name) is binary, which cannot go into a URL or form body")
        }
    }

    private static func pair(_ name: String, _ value: String) -> String {
        PercentEncoding.encodeComponent(name) + "=" + PercentEncoding.encodeComponent(value)
    }
}
