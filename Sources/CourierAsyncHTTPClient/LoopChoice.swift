import AsyncHTTPClient
import NIOCore
import Synchronization

/// Chooses the event loop each exchange's delegate runs on.
///
/// async-http-client runs a delegate on the loop its task was given, and when the connection it
/// leases lives on another loop, it hops every callback there: a wake-up of another thread for
/// each. Left to itself (`.indifferent`) it gives tasks the loops in turn, so with one request at
/// a time on one kept-alive connection, every other request hopped: about a fifth of the latency
/// of a small GET on loopback.
///
/// So an exchange asks for a loop where an exchange ended (its connection was left idle there,
/// and async-http-client leases an idle connection on the asked loop first). When none ended
/// since the last one was taken, it asks for none, and async-http-client's turn by turn spreads
/// the connections that many requests at once open over the loops. The counts are a guess, never
/// a promise: a connection the server closed meanwhile is still counted, and the request then
/// goes on another connection, with hops, as it would have anyway.
///
/// What is counted is the loop the delegate ran on: async-http-client does not tell a delegate
/// which loop its connection lives on. On a client that other code sends through too, the one idle
/// connection may be one that code opened on another loop; the choice then keeps asking for the
/// delegate's loop, and every exchange on that connection hops (``AsyncHTTPClientTransport/init(client:uploadChunkSize:decodesCompressedBodies:)``).
final class LoopChoice: Sendable {
    private final class Slot: Sendable {
        let loop: any EventLoop
        /// Exchanges that ended on this loop, not yet taken by one that started.
        let ended = Atomic<Int>(0)

        init(loop: any EventLoop) { self.loop = loop }
    }

    /// The most ended exchanges a loop counts: more than any pool keeps idle to one host.
    private static let most = 1_024

    private let slots: [Slot]

    /// A choice among the loops of `group`.
    init(group: any EventLoopGroup) {
        slots = group.makeIterator().map(Slot.init)
    }

    /// The loop for an exchange about to start: one where an exchange ended, or `nil` for
    /// async-http-client's own choice (`.indifferent`).
    func next() -> (any EventLoop)? {
        for slot in slots {
            var ended = slot.ended.load(ordering: .relaxed)
            while ended > 0 {
                let (exchanged, original) = slot.ended.compareExchange(expected: ended, desired: ended - 1, ordering: .relaxed)
                if exchanged { return slot.loop }
                ended = original
            }
        }
        return nil
    }

    /// An exchange whose delegate ran on `loop` ended with an answer, so its connection is likely
    /// idle there.
    func ended(on loop: any EventLoop) {
        for slot in slots where slot.loop === loop {
            if slot.ended.load(ordering: .relaxed) < Self.most { slot.ended.add(1, ordering: .relaxed) }
            return
        }
    }
}
