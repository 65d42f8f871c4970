import Foundation

/// Turns a response body into the value a request expects.
///
/// ``Request`` picks one from its value type: ``decodable(_:)`` for `Decodable` values, ``data`` for
/// raw bytes, ``json`` for an untyped ``JSONValue``. Pass your own to ``Request/init(_:_:query:body:headers:cache:serializer:)``
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
    /// Decodes the body with the context's ``DataDecoder``, or with an ``XMLTreeDecoder`` when the
    /// body is XML (by `Content-Type`, else by its first bytes) and the context's decoder is not one.
    public static func decodable(_ type: Value.Type = Value.self) -> ResponseSerializer {
        ResponseSerializer { body, context in
            if context.mayBeXML(body), !(context.decoder is XMLTreeDecoder), context.bodyKind(of: body) == .xml {
                return try XMLTreeDecoder.matching(context.decoder).decode(Value.self, from: body)
            }
            return try context.decoder.decode(Value.self, from: body)
        }
    }
}

extension SerializationContext {
    /// A cheap first test: false for the usual JSON responses, so they skip ``bodyKind(of:)``.
    func mayBeXML(_ body: Data) -> Bool {
        if let type = headers["Content-Type"] {
            // Over the contiguous bytes: the generic search of a UTF-8 view costs tens of instructions a byte.
            let x = UInt8(ascii: "x")
            return type.utf8.withContiguousStorageIfAvailable { $0.contains(x) } ?? type.utf8.contains(x)
        }
        return body.first { $0 > 0x20 } == UInt8(ascii: "<")
    }

    /// What the body is, by `Content-Type`, else by sniffing.
    func bodyKind(of body: Data) -> BodyKind { BodyKind(contentType: headers["Content-Type"], body: body) }
}

extension ResponseSerializer where Value == Data {
    /// The body bytes as they arrived.
    public static var data: ResponseSerializer { ResponseSerializer { body, _ in body } }
}

extension ResponseSerializer where Value == String {
    /// The body as UTF-8 text; bytes that are not UTF-8 fail.
    public static var string: ResponseSerializer {
        ResponseSerializer { body, _ in
            guard let text = String(validating: body, as: UTF8.self) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the body is not UTF-8 text"))
            }
            return text
        }
    }
}

extension ResponseSerializer where Value == JSONValue {
    /// The body parsed as untyped JSON; an empty body gives ``JSONValue/null``. A body that is not
    /// JSON but is text (an HTML error page, plain text) arrives as ``JSONValue/string(_:)`` instead
    /// of failing, as seed 000 promises; only bytes that are not UTF-8 fail.
    public static var json: ResponseSerializer {
        ResponseSerializer { body, _ in
            do {
                return try JSONValue.parse(body)
            } catch {
                guard let text = String(validating: body, as: UTF8.self) else { throw error }
                return .string(text)
            }
        }
    }
}

extension ResponseSerializer where Value == ResponseBodyValue {
    /// The body as JSON, XML, text or bytes, chosen by `Content-Type` with sniffing as a fallback.
    public static var untyped: ResponseSerializer {
        ResponseSerializer { body, context in ResponseBodyValue.read(body, contentType: context.headers["Content-Type"]) }
    }
}

extension ResponseSerializer where Value == XMLNode {
    /// The body parsed as XML; the root element.
    public static var xml: ResponseSerializer {
        ResponseSerializer { body, _ in try XMLTreeParser.parse(body) }
    }
}

// MARK: - The decode stage

extension APIClient {
    /// Decodes a response into the request's value type.
    func decode<Value>(
        _ response: TransportResponse, for request: Request<Value>, record: RequestRecord,
        source: ResponseSource
    ) throws(CourierError) -> Response<Value> {
        let context = SerializationContext(
            statusCode: response.statusCode, headers: response.headers, decoder: request.settings.decoder ?? configuration.decoder)
        let value: Value
        do {
            value = try request.serializer.serialize(response.body, context)
        } catch {
            var failure = CourierError(
                .decodingFailed, "The response to \(request.settings.method) \(response.url.path) could not be read as \(Value.self): \(DecodingErrorText.describe(error))",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
                underlyingError: error)
            failure.keyPath = DecodingErrorText.keyPath(of: error)
            throw failure
        }
        return Response(
            value: value, statusCode: response.statusCode, headers: response.headers, data: response.body,
            url: response.url, source: source, requestID: record.id, duration: ContinuousClock.now - record.start)
    }

    /// The error for a response a delegate hook turned into one.
    func rejected(_ response: TransportResponse, by rejection: any Error) -> CourierError {
        if var error = rejection as? CourierError {
            error.url = error.url ?? response.url
            return error
        }
        return CourierError(
            .rejected, "The response to \(response.url.path) was rejected: \(rejection.localizedDescription)",
            url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
            underlyingError: rejection)
    }

    /// The error for a response whose status is not acceptable.
    func statusFailure(_ response: TransportResponse, method: HTTPMethod) -> CourierError {
        CourierError(
            .httpStatus(response.statusCode),
            "The server answered \(response.statusCode) (\(HTTPStatus.reason(response.statusCode))) to \(method) \(response.url.path).",
            url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
    }
}

extension TransportResponse {
    /// Whether this is a 304 to a conditional request the caller made itself (its own
    /// `If-None-Match` or `If-Modified-Since`, not Courier's revalidation of a cached entry): the
    /// caller asked "has it changed?", and "no" is an answer, not an error. Its body is empty.
    func answersCallersOwnCondition(_ request: TransportRequest, revalidating: Bool) -> Bool {
        statusCode == 304 && !revalidating
            && (request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since"))
    }
}
