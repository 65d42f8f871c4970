import Foundation

/// Decodes a `Decodable` value from response bytes. `JSONDecoder` conforms; so can your own decoder.
public protocol DataDecoder: Sendable {
    /// Decodes a value of `type` from `data`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: DataDecoder {}

/// Encodes an `Encodable` request body. `JSONEncoder` conforms; so can your own encoder.
public protocol DataEncoder: Sendable {
    /// The `Content-Type` of what ``encode(_:)`` produces.
    var contentType: String { get }
    /// Encodes `value` as body bytes.
    func encode<T: Encodable>(_ value: T) throws -> Data
}

extension JSONEncoder: DataEncoder {
    /// `application/json`.
    public var contentType: String { "application/json" }
}
