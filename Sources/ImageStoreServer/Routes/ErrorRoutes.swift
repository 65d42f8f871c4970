import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// Routes that fail on purpose, in the shapes real APIs use.
///
/// - `GET /errors/422?shape=rails|nested|jsonapi|problem`: a 422 whose body lists field errors in
///   that shape (Rails `errors` map, `error.validations`, JSON:API `errors` array, RFC 9457
///   `invalid-params`);
/// - `GET /errors/500`: a 500 with an HTML page, as a crashed framework answers;
/// - `GET /errors/{code}?key=error_message&message=…`: that status with `{key: message}`, or its
///   XML form with `?type=xml`.
struct ErrorRoutes {
    func add(to router: Router<BasicRequestContext>) {
        router.get("errors/422", use: validation)
        router.get("errors/500", use: htmlFailure)
        router.get("errors/{code}", use: message)
        router.post("errors/replay", use: replay)
    }

    /// Answers with the request's own body and `Content-Type` and the status `?status=` (400 by
    /// default, 400-599): tests send what real frameworks write and get it back as an error.
    @Sendable func replay(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let code = request.uri.queryParameters.get("status", as: Int.self) ?? 400
        guard (400...599).contains(code) else { throw HTTPError(.badRequest, message: "An error status is between 400 and 599.") }
        let body = try await request.body.collect(upTo: 16 << 20)
        let contentType = request.headers[.contentType] ?? "application/json"
        return Response(status: .init(code: code), headers: [.contentType: contentType], body: .init(byteBuffer: body))
    }

    @Sendable func validation(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let shape = request.uri.queryParameters.get("shape") ?? "rails"
        let body: String
        var contentType = "application/json"
        switch shape {
        case "rails":
            body = #"{"errors":{"email":["has already been taken","is invalid"],"password":["is too short (minimum is 8 characters)"]}}"#
        case "nested":
            body = #"{"error":{"message":"Validation failed","validations":{"email":["has already been taken"],"name":["can't be blank"]}}}"#
        case "jsonapi":
            contentType = "application/vnd.api+json"
            body = #"{"errors":[{"status":"422","source":{"pointer":"/data/attributes/email"},"detail":"has already been taken"},{"status":"422","source":{"pointer":"/data/attributes/password"},"title":"Invalid","detail":"is too short"},{"status":"422","detail":"Account is locked"}]}"#
        case "problem":
            contentType = "application/problem+json"
            body = #"{"type":"https://example.com/probs/validation","title":"Your request is not valid.","status":422,"invalid-params":[{"name":"age","reason":"must be a positive integer"},{"name":"color","reason":"must be 'green', 'red' or 'blue'"}]}"#
        default:
            body = #"{"oops":"an unknown shape"}"#
        }
        return Response(
            status: .unprocessableContent, headers: [.contentType: contentType],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    @Sendable func htmlFailure(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let page = "<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1><p>Something went wrong.</p></body></html>"
        return Response(status: .internalServerError, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    @Sendable func message(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let code = try context.parameters.require("code", as: Int.self)
        guard (100...599).contains(code) else { throw HTTPError(.badRequest, message: "A status code is between 100 and 599.") }
        let key = request.uri.queryParameters.get("key") ?? "error"
        let message = request.uri.queryParameters.get("message") ?? "Something went wrong"
        return try formatted([key: message], root: "response", status: .init(code: code), request: request)
    }
}

/// A JSON response, or its XML form when the request asks with `?type=xml` (seed 004).
func formatted(_ value: some Encodable, root: String, status: HTTPResponse.Status = .ok, request: Request) throws -> Response {
    let (body, contentType) = try formattedBody(value, root: root, request: request)
    return Response(status: status, headers: [.contentType: contentType], body: .init(byteBuffer: body))
}

/// The body of ``formatted(_:root:status:request:)`` and its content type.
func formattedBody(_ value: some Encodable, root: String, request: Request) throws -> (body: ByteBuffer, contentType: String) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = try encoder.encode(value)
    guard request.uri.queryParameters.get("type") == "xml" else { return (ByteBuffer(data: json), "application/json") }
    return (ByteBuffer(data: try XMLBody.document(fromJSON: json, root: root)), "application/xml; charset=utf-8")
}
