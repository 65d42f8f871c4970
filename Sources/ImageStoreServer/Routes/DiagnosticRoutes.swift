import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat
import ServiceLifecycle

/// Routes for testing HTTP clients: echo, chosen status, delay, byte streams, redirects.
struct DiagnosticRoutes {
    /// Largest body `/echo` accepts.
    static let maximumEchoBody = 256 * 1024 * 1024
    /// When the sample document last changed (it never does).
    static let sampleDate = Date(timeIntervalSince1970: 1_440_171_945)

    /// The ~300-byte JSON document `/sample` returns.
    static let sampleJSON = ByteBuffer(string: #"""
    {"id":"123","user_name":"fulana22k","email":"fulana22k@example.com","is_first_login":true,"register_date":"2015/08/21 15:45:45","favorite_pizza":{"pizza_id":5,"name":"Catuperoni","number_of_ingredients":null},"ordered_pizzas":[{"pizza_id":5,"name":"Catuperoni","number_of_ingredients":null},{"pizza_id":10,"name":"Calabresa","number_of_ingredients":3}]}
    """#)

    /// The size of the writes of `/bytes`.
    static let chunkSize = 64 * 1024
    /// Bytes `i % 251` for `i` in `0..<chunkSize + 251`: any chunk of `/bytes` is a slice of it.
    static let pattern = ByteBuffer(bytes: (0..<(chunkSize + 251)).map { UInt8($0 % 251) })

    func add(to router: Router<BasicRequestContext>) {
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head, .options]
        for method in methods {
            router.on("echo", method: method, use: echo)
            router.on("echo/**", method: method, use: echo)
            router.on("status/{code}", method: method, use: status)
            router.on("redirect", method: method, use: redirect)
            router.on("redirect/loop", method: method) { _, _ in Response(status: .found, headers: [.location: "/redirect/loop"]) }
        }
        router.get("delay/{milliseconds}", use: delay)
        router.get("bytes/{count}", use: bytes)
        router.get("sample", use: sample)
    }

    @Sendable func echo(_ request: Request, context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: Self.maximumEchoBody)
        let reply = EchoReply(
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query,
            headers: request.headers.map { [$0.name.rawName, $0.value] },
            body: Data(buffer: body).base64EncodedString())
        return try jsonResponse(reply)
    }

    @Sendable func status(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let code = try context.parameters.require("code", as: Int.self)
        guard (100...599).contains(code) else { throw HTTPError(.badRequest, message: "A status code is between 100 and 599.") }
        return try jsonResponse(["status": code], status: .init(code: code))
    }

    @Sendable func delay(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let milliseconds = try context.parameters.require("milliseconds", as: Int.self)
        try await cancelWhenGracefulShutdown {
            try await Task.sleep(for: .milliseconds(min(max(milliseconds, 0), 60_000)))
        }
        return try jsonResponse(["delayed": milliseconds])
    }

    /// `count` bytes where byte `i` is `i % 251`, in 64 KiB writes; `?chunked=true` leaves out
    /// `Content-Length`. The bytes depend on `count` only, so its strong `ETag` is `"bytes-<count>"`,
    /// and a `Range` under `If-Range` gets its part (``RangeSelection``).
    @Sendable func bytes(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let count = try context.parameters.require("count", as: Int.self)
        guard (0...(1 << 32)).contains(count) else { throw HTTPError(.badRequest, message: "count must be between 0 and 2^32.") }
        let chunked = request.uri.queryParameters.get("chunked") == "true"
        let etag = "\"bytes-\(count)\""
        let selection = RangeSelection(request, length: count, etag: etag, lastModified: nil)
        let fields = selection.fields([.contentType: "application/octet-stream", .eTag: etag], length: count)
        guard selection != .unsatisfiable else { return Response(status: selection.status, headers: fields) }
        let (first, length) = selection.span(of: count)
        let body = ResponseBody(contentLength: chunked ? nil : length) { writer in
            var offset = first
            while offset < first + length {
                let size = min(Self.chunkSize, first + length - offset)
                try await writer.write(Self.pattern.getSlice(at: offset % 251, length: size)!)
                offset += size
            }
            try await writer.finish(nil)
        }
        return Response(status: selection.status, headers: fields, body: body)
    }

    /// The sample document; its XML form with `?type=xml`. Without `?type`, the form is negotiated:
    /// XML for an `Accept` that names `application/xml` and not `application/json`, and the
    /// answer says so with `Vary: Accept` (one URL, two representations, as seed 004 asks them).
    @Sendable func sample(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let type = request.uri.queryParameters.get("type")
        let accept = request.headers[.accept] ?? ""
        let negotiated = type == nil
        let xml = type == "xml" || (negotiated && accept.contains("application/xml") && !accept.contains("application/json"))
        let fields: HTTPFields = negotiated ? [.vary: "Accept"] : [:]
        if xml {
            let xml = try XMLBody.document(fromJSON: Data(buffer: Self.sampleJSON), root: "user")
            return ConditionalResponse.make(
                request, body: ByteBuffer(data: xml), contentType: "application/xml; charset=utf-8", lastModified: Self.sampleDate,
                fields: fields)
        }
        return ConditionalResponse.make(
            request, body: Self.sampleJSON, contentType: "application/json", lastModified: Self.sampleDate, fields: fields)
    }

    /// Redirects to `?to=` with `?status=` (302 by default).
    @Sendable func redirect(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let target = request.uri.queryParameters.get("to") else {
            throw HTTPError(.badRequest, message: "Give the target as ?to=URL.")
        }
        let code = request.uri.queryParameters.get("status", as: Int.self) ?? 302
        guard (300...399).contains(code) else { throw HTTPError(.badRequest, message: "A redirect status is between 300 and 399.") }
        return Response(status: .init(code: code), headers: [.location: target])
    }
}

/// A JSON response with sorted keys.
package func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(value)
    return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: data)))
}
