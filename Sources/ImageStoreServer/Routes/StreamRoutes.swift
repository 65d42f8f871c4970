import Foundation
import HTTPTypes
import Hummingbird

/// Bodies that arrive as streams:
/// - `GET /events`: Server-Sent Events `tick` with ids 1…`count` (`?count=`, 5 by default) and data
///   `{"n": id}`, `?interval=` milliseconds apart (0 by default). A request with `Last-Event-ID: k`
///   resumes at k+1; one past the last event gets 204 (no more). `?retry=` sends a `retry:` field
///   first; `?dropAfter=` cuts the connection (no end of the chunked body) after that many events
///   of this connection, as a network drop would, part way through the next event (its `id:`,
///   `event:` and `data:` lines sent, not the blank line that would dispatch it).
/// - `GET /ndjson`: `count` lines of NDJSON (`application/x-ndjson`), `{"item_id": i, "display_name": "item i"}`.
/// - `POST /chat/completions`: an imitation of a streaming AI chat completion (the
///   `text/event-stream` shape such APIs use): one `chat.completion.chunk` event per word of an
///   answer that repeats the last user message, then `data: [DONE]`.
struct StreamRoutes: Sendable {
    func add(to router: Router<BasicRequestContext>) {
        router.get("events", use: events)
        router.get("ndjson", use: ndjson)
        router.post("chat/completions", use: chat)
    }

    /// Cut short on purpose, to drop a connection mid-body.
    struct Dropped: Error {}

    @Sendable func events(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        let count = min(max(parameters.get("count", as: Int.self) ?? 5, 0), 1_000_000)
        let interval = min(max(parameters.get("interval", as: Int.self) ?? 0, 0), 60_000)
        let retry = parameters.get("retry", as: Int.self)
        let dropAfter = parameters.get("dropAfter", as: Int.self)
        let last = request.headers[.lastEventID].flatMap { Int($0) } ?? 0
        guard last < count else { return Response(status: .noContent) }
        let body = ResponseBody { writer in
            if let retry { try await writer.write(ByteBuffer(string: "retry: \(retry)\n\n")) }
            var sent = 0
            for id in (last + 1)...count {
                if let dropAfter, sent >= dropAfter {
                    try await writer.write(ByteBuffer(string: "id: \(id)\nevent: tick\ndata: {\"n\": \(id)}\n"))
                    throw Dropped()
                }
                if interval > 0, sent > 0 { try await Task.sleep(for: .milliseconds(interval)) }  // the pace of the stream
                try await writer.write(ByteBuffer(string: "id: \(id)\nevent: tick\ndata: {\"n\": \(id)}\n\n"))
                sent += 1
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }

    @Sendable func ndjson(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let count = min(max(request.uri.queryParameters.get("count", as: Int.self) ?? 3, 0), 1_000_000)
        let body = ResponseBody { writer in
            var batch = ""
            for index in 0..<count {
                batch += "{\"item_id\": \(index + 1), \"display_name\": \"item \(index + 1)\"}\n"
                if batch.utf8.count > 16_384 || index == count - 1 {
                    try await writer.write(ByteBuffer(string: batch))
                    batch = ""
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: body)
    }

    struct ChatRequest: Decodable {
        struct Message: Decodable {
            var role: String
            var content: String
        }
        var model: String?
        var messages: [Message]
        var stream: Bool?
    }

    @Sendable func chat(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let chat = try JSONDecoder().decode(ChatRequest.self, from: Data(buffer: try await request.body.collect(upTo: 1 << 20)))
        let said = chat.messages.last { $0.role == "user" }?.content ?? ""
        let words = ["You", " said:"] + said.split(separator: " ").map { " " + $0 }
        let model = chat.model ?? "courier-sample"
        let body = ResponseBody { writer in
            for (index, word) in words.enumerated() {
                let chunk: [String: Any] = [
                    "id": "chatcmpl-sample", "object": "chat.completion.chunk", "model": model,
                    "choices": [["index": 0, "delta": index == 0 ? ["role": "assistant", "content": word] : ["content": word], "finish_reason": NSNull()]],
                ]
                let json = try JSONSerialization.data(withJSONObject: chunk, options: [.sortedKeys])
                try await writer.write(ByteBuffer(string: "data: \(String(decoding: json, as: UTF8.self))\n\n"))
            }
            try await writer.write(ByteBuffer(string: "data: [DONE]\n\n"))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}
