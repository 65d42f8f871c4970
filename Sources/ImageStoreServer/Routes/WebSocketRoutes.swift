import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWSCompression
import HummingbirdWebSocket

/// The WebSocket routes, served on HTTP/1.1 upgrades (permessage-deflate offered, messages up to
/// 16 MiB):
/// - `GET /ws/echo`: sends every message back as it came (text as text, binary as binary). A text
///   message `close CODE REASON` makes the server close with that code and reason instead.
/// - `GET /ws/feed`: for a signed-in user (the `access-token`, `client` and `uid` headers, as the
///   HTTP routes take them; the handshake's 101 carries the rotated token. Refused otherwise:
///   hummingbird-websocket answers every refused upgrade with 400 and no body): `hello EMAIL`, then `tick 1` … `tick N` (`?count=`, 3 by default), then a close
///   with 1000 and `done`.
/// - `GET /ws/bytes/{count}`: sends `count` bytes (at most 2^32), byte `i` being `i % 251` as on
///   `/bytes`, in binary messages of 64 KiB (the last one shorter), as fast as the client reads
///   them, then closes with 1000 and `done`.
struct WebSocketRoutes: Sendable {
    let accounts: AccountStore

    /// The largest frame and message the server takes.
    static let maximumMessageSize = 16 << 20

    func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("ws/echo") { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: Self.maximumMessageSize) {
                switch message {
                case .text(let text) where text.hasPrefix("close "):
                    let parts = text.split(separator: " ", maxSplits: 2).map(String.init)
                    let code = parts.count > 1 ? Int(parts[1]) ?? 1000 : 1000
                    try await outbound.close(.init(codeNumber: code), reason: parts.count > 2 ? parts[2] : nil)
                    return
                case .text(let text): try await outbound.writeTextMessage(text)
                case .binary(let buffer): try await outbound.writeBinaryMessage(buffer)
                }
            }
        }
        router.ws("ws/bytes/{count}") { _, outbound, context in
            let requested = context.requestContext.parameters.get("count", as: Int.self) ?? -1
            guard (0...(1 << 32)).contains(requested) else {
                try await outbound.close(.policyViolation, reason: "count must be between 0 and 2^32")
                return
            }
            let chunk = DiagnosticRoutes.chunkSize
            var offset = 0
            while offset < requested {
                let size = min(chunk, requested - offset)
                guard let piece = DiagnosticRoutes.pattern.getSlice(at: offset % 251, length: size) else { break }
                try await outbound.writeBinaryMessage(piece)
                offset += size
            }
            try await outbound.close(.normalClosure, reason: "done")
        }
        let accounts = accounts
        router.ws("ws/feed") { request, _ in
            func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { request.headers[$0] } }
            guard let session = try await accounts.authenticate(token: header("access-token"), client: header("client"), uid: header("uid")) else {
                throw HTTPError(.unauthorized, message: "You need to sign in or sign up before continuing.")
            }
            var fields = HTTPFields()
            for (name, value) in session.headers {
                if let field = HTTPField.Name(name) { fields[field] = value }
            }
            fields[HTTPField.Name("x-feed-user")!] = session.email
            return .upgrade(fields)
        } onUpgrade: { _, outbound, context in
            let count = min(max(context.request.uri.queryParameters.get("count", as: Int.self) ?? 3, 0), 100_000)
            let user = context.request.headers[HTTPField.Name("uid")!] ?? ""
            try await outbound.writeTextMessage("hello \(user)")
            for number in stride(from: 1, through: count, by: 1) {
                try await outbound.writeTextMessage("tick \(number)")
            }
            try await outbound.close(.normalClosure, reason: "done")
        }
        return router
    }

    /// The server's WebSocket settings.
    static var configuration: HTTP1WebSocketUpgradeChannel.Configuration {
        .init(ws: .init(maxFrameSize: maximumMessageSize, extensions: [.perMessageDeflate(maxDecompressedFrameSize: maximumMessageSize)], autoPing: .disabled, validateUTF8: true))
    }
}
