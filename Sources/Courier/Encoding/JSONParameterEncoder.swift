import Foundation

/// Encodes parameters as a JSON object (`application/json`). The default encoder.
///
/// Object keys are written in sorted order, so the same parameters always give the same bytes.
/// Binary values that reach this encoder directly are written as Base64 strings; requests never
/// do that, because binary bodies go out as multipart.
public struct JSONParameterEncoder: ParameterEncoding {
    /// Creates the encoder.
    public init() {}

    /// Writes `parameters` as a JSON object.
    public func encode(_ parameters: Parameters) throws -> EncodedBody {
        var writer = JSONWriter()
        try writer.write(.object(parameters))
        return EncodedBody(data: writer.data, contentType: "application/json")
    }
}
