import NIOCore
import NIOWebSocket

/// What RFC 6455 forbids a server's frames that neither swift-nio's decoder nor swift-websocket
/// turns into an error the reader can see: a masked frame, reserved bits no extension claimed, an
/// opcode the protocol does not define. The first such frame fails the channel's reading with a
/// ``ServerFrameViolation``; ``NIOWebSocketConnection`` closes with 1002 and tells the reader.
/// It also hands the app's ``PongWaiters`` each pong as it arrives (swift-websocket keeps pongs
/// to itself).
final class ServerFrameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// Whether permessage-deflate was agreed, which claims RSV1.
    private let compressed: Bool
    private let pongs: PongWaiters
    private var failed = false

    init(compressed: Bool, pongs: PongWaiters) {
        self.compressed = compressed
        self.pongs = pongs
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = unwrapInboundIn(data)
        if let violation = Self.violation(in: frame, compressed: compressed) {
            failed = true
            context.fireErrorCaught(violation)
            return
        }
        if frame.opcode == .pong { pongs.answered(frame.unmaskedData) }
        context.fireChannelRead(data)
    }

    private static func violation(in frame: WebSocketFrame, compressed: Bool) -> ServerFrameViolation? {
        if frame.maskKey != nil {
            return ServerFrameViolation(reason: "sent a masked frame (a server's frames are never masked, RFC 6455 section 5.1)")
        }
        if frame.rsv2 || frame.rsv3 || (frame.rsv1 && !(compressed && (frame.opcode == .text || frame.opcode == .binary))) {
            return ServerFrameViolation(reason: "set reserved bits that no agreed extension gives a meaning")
        }
        switch frame.opcode {
        case .continuation, .text, .binary, .connectionClose, .ping, .pong: return nil
        default: return ServerFrameViolation(reason: "sent a frame with opcode \(frame.opcode), which RFC 6455 does not define")
        }
    }
}

/// A frame from the server that breaks RFC 6455, and how.
struct ServerFrameViolation: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
