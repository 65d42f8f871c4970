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
/// - `GET /errors/validation/{shape}`: the field errors of a web framework (`fastapi`,
///   `djangoRestFramework`, `flaskWebargs`, `laravel`, `aspnetCore`, `spring`, `expressValidator`,
///   `nestjs`, and the four above), with the status that framework answers (``ValidationShapes``);
/// - `GET /errors/500`: a 500 with an HTML page, as a crashed framework answers;
/// - `GET /errors/{code}?key=error_message&message=…`: that status with `{key: message}`, or its
///   XML form with `?type=xml`.
struct ErrorRoutes {
    func add(to router: Router<BasicRequestContext>) {
        router.get("errors/422", use: validation)
        router.get("errors/validation/{shape}", use: framework)
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

    /// `GET /errors/422?shape=`: a shape of ``ValidationShapes`` with status 422 (`rails` by default).
    @Sendable func validation(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = request.uri.queryParameters.get("shape") ?? "rails"
        let shape = ValidationShapes.all[name] ?? ValidationShapes.Shape(status: 422, body: #"{"oops":"an unknown shape"}"#)
        return Self.response(shape, status: 422)
    }

    /// `GET /errors/validation/{shape}`: a framework's field errors with its own status.
    @Sendable func framework(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("shape")
        guard let shape = ValidationShapes.all[name] else {
            throw HTTPError(.notFound, message: "No shape \(name); the shapes are \(ValidationShapes.all.keys.sorted().joined(separator: ", ")).")
        }
        return Self.response(shape, status: shape.status)
    }

    private static func response(_ shape: ValidationShapes.Shape, status: Int) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: shape.contentType],
            body: .init(byteBuffer: ByteBuffer(string: shape.body)))
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
