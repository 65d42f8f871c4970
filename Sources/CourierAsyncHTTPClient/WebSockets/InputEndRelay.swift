import NIOCore
import NIOHTTP1

/// Holds back the end of the server's input until the upgrade is done. A server that sends its
/// messages and closing handshake right after its 101 and then ends its side can have its FIN
/// read in the same turn as the 101, before swift-nio has swapped the HTTP handlers for the
/// WebSocket ones. swift-nio's HTTP decoder drops the bytes it holds past the 101 once it has seen
/// the end of input (it forwards them only when removed before), so the messages would be lost.
/// This handler stands in front of the decoder and, once the response's head has arrived
/// (``ResponseHeadWatch``), keeps the end from it; ``release()``, run once the upgraded pipeline
/// has had the buffered frames (or the refused one its response), passes it on. An end before any
/// head (a server that closes without answering, during TLS or the handshake) passes at once, so
/// that the handshake fails now rather than at its timeout. The connection allows half closure,
/// so that the end arrives as an event, not as a close.
final class InputEndRelay: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var context: ChannelHandlerContext?
    private var headArrived = false
    private var ended = false
    private var released = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case ChannelEvent.inputClosed = event, !released else { return context.fireUserInboundEventTriggered(event) }
        if headArrived {
            ended = true
            return
        }
        // No answer can come now: the decoder hears of the end (and fails a head cut short), and
        // the connection, which half closure would keep open, closes.
        context.fireUserInboundEventTriggered(event)
        context.close(promise: nil)
    }

    /// The response's head has been decoded: an end of input from now on waits for ``release()``.
    func responseHeadArrived() {
        headArrived = true
    }

    /// From now on the end of input passes; if it came already, it passes now.
    func release() {
        guard !released else { return }
        released = true
        if ended { context?.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
    }
}

/// Tells the ``InputEndRelay`` when the handshake response's head has been decoded; it stands
/// between swift-nio's HTTP decoder and its upgrade handler until then.
final class ResponseHeadWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private let relay: InputEndRelay

    init(relay: InputEndRelay) {
        self.relay = relay
    }

    /// Passes the head on and leaves: after it come the response's body or, once upgraded, raw
    /// bytes, which are not this handler's type.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        relay.responseHeadArrived()
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
