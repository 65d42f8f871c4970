import Courier
import NIOCore

/// The app's pings on one connection (``NIOWebSocketConnection/ping()``) that wait for their pong.
/// Each ping carries a payload of its own (`CPNG` and its number), so that a pong answers the ping
/// it echoes and no other, and swift-websocket's own pings (16 random bytes) are never mistaken
/// for the app's. A pong may arrive before its ping's waiter does: it is kept until then.
final class PongWaiters: Sendable {
    /// How a ping ended.
    enum Outcome: Sendable {
        case answered, timedOut, cancelled, ended
    }

    private enum Waiter {
        case sent
        case waiting(CheckedContinuation<Outcome, Never>)
        case settled(Outcome)
    }

    private struct State {
        var next: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var ended = false
    }

    private static let marker: [UInt8] = Array("CPNG".utf8)
    private let state = Locked(State())

    /// A new ping's number and the payload it carries.
    func expect() -> (UInt64, ByteBuffer) {
        let number = state.withLock { state in
            state.next += 1
            state.waiters[state.next] = state.ended ? .settled(.ended) : .sent
            return state.next
        }
        var payload = ByteBuffer()
        payload.writeBytes(Self.marker)
        payload.writeInteger(number)
        return (number, payload)
    }

    /// Waits until ping `number` is settled, and forgets it.
    func wait(_ number: UInt64) async -> Outcome {
        await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Outcome? in
                switch state.waiters[number] {
                case .settled(let outcome):
                    state.waiters[number] = nil
                    return outcome
                case .sent:
                    state.waiters[number] = .waiting(continuation)
                    return nil
                case .waiting, nil:
                    return .ended
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Ends ping `number` with `outcome`, unless it has ended already.
    func settle(_ number: UInt64, _ outcome: Outcome) {
        let waiting = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            switch state.waiters[number] {
            case .sent:
                state.waiters[number] = .settled(outcome)
                return nil
            case .waiting(let continuation):
                state.waiters[number] = nil
                return continuation
            case .settled, nil:
                return nil
            }
        }
        waiting?.resume(returning: outcome)
    }

    /// Forgets ping `number`, which was never sent.
    func forget(_ number: UInt64) {
        state.withLock { _ = $0.waiters.removeValue(forKey: number) }
    }

    /// A pong with `payload` arrived (on the connection's event loop).
    func answered(_ payload: ByteBuffer) {
        var payload = payload
        guard payload.readableBytes == Self.marker.count + 8, payload.readBytes(length: Self.marker.count) == Self.marker,
            let number = payload.readInteger(as: UInt64.self)
        else { return }
        settle(number, .answered)
    }

    /// The connection ended: every ping still waiting ends too, and later ones at once.
    func end() {
        let waiting = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            state.ended = true
            var waiting: [CheckedContinuation<Outcome, Never>] = []
            for (number, waiter) in state.waiters {
                switch waiter {
                case .sent: state.waiters[number] = .settled(.ended)
                case .waiting(let continuation):
                    waiting.append(continuation)
                    state.waiters[number] = nil
                case .settled: break
                }
            }
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: .ended) }
    }
}
