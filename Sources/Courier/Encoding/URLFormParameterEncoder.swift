import Foundation

/// Encodes parameters as `application/x-www-form-urlencoded`, with the same rules as query strings
/// (the query string's rules).
public struct URLFormParameterEncoder: ParameterEncoding {
    /// Creates the encoder.
    public init() {}

    /// Writes `parameters` as `key=value&…` with nested names such as `user[name]` and `tags[]`.
    public func encode(_ parameters: Parameters) throws -> EncodedBody {
        let text = try QueryStringEncoder.encode(parameters)
        return EncodedBody(data: Data(text.utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8")
    }
}
