import NIOCore
import NIOWebSocket

/// What RFC 6455 forbids a server's frames that neither swift-nio's decoder nor swift-websocket
/// turns into an error the reader can see: a masked frame, reserved bits no extension claimed, an
/// opcode the protocol does not define. The first such frame fails the channel's reading with a
/// ``ServerFrameViolation``; ``NIOWebSocketConnection`` closes with 1002 and tells the reader.
final class ServerFrameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    /// Whether permessage-deflate was agreed, which claims RSV1.
    private let compressed: Bool
    private var failed = false

    init(compressed: Bool) {
        self.compressed = compressed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = unwrapInboundIn(data)
        if let violation = Self.violation(in: frame, compressed: compressed) {
            failed = true
            context.fireErrorCaught(violation)
            return
        }
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

/// Holds back the end of the server's input until the upgrade is done. A server that sends its
/// messages and closing handshake right after its 101 and then ends its side can have its FIN
/// read in the same turn as the 101, before swift-nio has swapped the HTTP handlers for the
/// WebSocket ones. swift-nio's HTTP decoder drops the bytes it holds past the 101 once it has seen
/// the end of input (it forwards them only when removed before), so the messages would be lost.
/// This handler stands in front of the decoder and keeps the end from it; ``release()``, run once
/// the upgraded pipeline has had the buffered frames (or the refused one its response), passes it
/// on. The connection allows half closure, so that the end arrives as an event, not as a close.
final class InputEndRelay: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var context: ChannelHandlerContext?
    private var ended = false
    private var released = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, !released {
            ended = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// From now on the end of input passes; if it came already, it passes now.
    func release() {
        guard !released else { return }
        released = true
        if ended { context?.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
    }
}
