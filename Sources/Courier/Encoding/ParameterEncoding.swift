import Foundation

/// Turns body parameters into bytes and a content type (seed 001's `ParameterEncoding`).
///
/// Courier ships ``JSONParameterEncoder`` (the default) and ``URLFormParameterEncoder``. Conform your
/// own type to send another format. Bodies that contain binary values never reach the encoder: they
/// are sent as `multipart/form-data`.
public protocol ParameterEncoding: Sendable {
    /// Encodes `parameters` as a request body.
    /// - Throws: Any error; Courier reports it as an ``CourierError/Kind/encodingFailed`` error.
    func encode(_ parameters: Parameters) throws -> EncodedBody
}

/// An encoded request body and its media type.
public struct EncodedBody: Sendable, Hashable {
    /// The body bytes.
    public var data: Data
    /// The value for the `Content-Type` header.
    public var contentType: String

    /// Creates an encoded body.
    public init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}
