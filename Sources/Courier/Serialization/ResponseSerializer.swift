import Foundation

/// Turns a response body into the value a request expects.
///
/// ``Request`` picks one from its value type: ``decodable(_:)`` for `Decodable` values, ``data`` for
/// raw bytes, ``json`` for an untyped ``JSONValue``. Pass your own to ``Request/init(_:_:query:body:headers:serializer:)``
/// for anything else.
public struct ResponseSerializer<Value: Sendable>: Sendable {
    /// Produces the value from the body and what the client knows of the response.
    public let serialize: @Sendable (_ body: Data, _ context: SerializationContext) throws -> Value

    /// Creates a serializer from a closure.
    public init(_ serialize: @escaping @Sendable (_ body: Data, _ context: SerializationContext) throws -> Value) {
        self.serialize = serialize
    }
}

/// What a ``ResponseSerializer`` is given beside the body.
public struct SerializationContext: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The decoder chosen for this request (the request's, else the client's).
    public var decoder: any DataDecoder
}

extension ResponseSerializer where Value: Decodable {
    /// Decodes the body with the context's ``DataDecoder``.
    public static func decodable(_ type: Value.Type = Value.self) -> ResponseSerializer {
        ResponseSerializer { body, context in try context.decoder.decode(Value.self, from: body) }
    }
}

extension ResponseSerializer where Value == Data {
    /// The body bytes as they arrived.
    public static var data: ResponseSerializer { ResponseSerializer { body, _ in body } }
}

extension ResponseSerializer where Value == JSONValue {
    /// The body parsed as untyped JSON; an empty body gives ``JSONValue/null``.
    public static var json: ResponseSerializer {
        ResponseSerializer { body, _ in try JSONValue.parse(body) }
    }
}
