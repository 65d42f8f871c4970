import Courier
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/flaky/{key}`, any method: the failures a client retries. The first `failures` requests for
/// `key` (default 1) answer `status` (default 503; 200-599 but 204, 205 and 304, which have no
/// body) with `{"key", "attempt", "bodyLength"}`, and with `Retry-After: retry_after` (seconds) or,
/// with `retry_after_date=N`, an HTTP date `N` seconds ahead; later ones answer 200 with the same
/// fields.
struct ResilienceRoutes {
    /// Requests per `/flaky/{key}` key.
    let attempts = Tally()

    struct Reply: Encodable {
        let key: String
        let attempt: Int
        /// The length of the request body this attempt carried.
        let bodyLength: Int
    }

    func add(to router: Router<BasicRequestContext>) {
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head, .options]
        for method in methods {
            router.on("flaky/{key}", method: method, use: flaky)
        }
    }

    @Sendable func flaky(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let key = try context.parameters.require("key")
        let query = request.uri.queryParameters
        let failures = query.get("failures").flatMap { Int($0) } ?? 1
        let status = query.get("status").flatMap { Int($0) } ?? 503
        // A failure carries its JSON body, so a status that has none (204, 205, 304) is refused.
        guard (200...599).contains(status), ![204, 205, 304].contains(status) else {
            throw HTTPError(.badRequest, message: "status is between 200 and 599, and not 204, 205 or 304 (they have no body).")
        }
        var retryAfter = query.get("retry_after").map { String($0) }
        if retryAfter == nil, let ahead = query.get("retry_after_date") {
            guard let seconds = Double(ahead), let date = HTTPDate.format(Date().addingTimeInterval(seconds)) else {
                throw HTTPError(.badRequest, message: "retry_after_date is a number of seconds that keeps the date between the years 1900 and 9999.")
            }
            retryAfter = date
        }
        var request = request
        let body = try await request.collectBody(upTo: 64 << 20)
        let attempt = attempts.next(key)
        let reply = Reply(key: key, attempt: attempt, bodyLength: body.readableBytes)
        guard attempt <= failures else { return try jsonResponse(reply) }
        var response = try jsonResponse(reply, status: HTTPResponse.Status(code: status))
        if let retryAfter { response.headers[.retryAfter] = retryAfter }
        return response
    }
}
