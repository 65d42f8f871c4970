import NIOCore

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
