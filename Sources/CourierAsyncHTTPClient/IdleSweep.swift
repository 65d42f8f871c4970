import AsyncHTTPClient
import Courier
import NIOCore

/// The idle timeouts of the exchanges whose tasks run on one event loop: one repeating check on
/// that loop every ``interval`` while any exchange is watched, in place of a task scheduled (and
/// cancelled) for every request. A timeout is noticed at most one interval after it passed.
///
/// An exchange is watched from its start to its end; the check fails the task of each one with
/// nothing sent or received for its whole timeout (``ResponseDelegate/idleCheck(at:)``), and forgets
/// the ones that ended. The check stops once nothing was watched for ``idleTicks`` looks in a row
/// and starts again with the next exchange, so an idle client has no timer, and a client between
/// two requests does not stop and restart it.
final class IdleSweep: Sendable {
    /// How often the exchanges are looked at.
    static let interval = TimeAmount.milliseconds(100)

    /// How many looks in a row find nothing watched before the check stops.
    static let idleTicks = 10

    private struct State {
        var watched: [ObjectIdentifier: ResponseDelegate] = [:]
        var ticking: RepeatedTask?
        var emptyTicks = 0
    }

    private let loop: any EventLoop
    private let state = Locked(State())

    init(loop: any EventLoop) { self.loop = loop }

    /// One sweep for each event loop of `group`, by the loop's identity, and the one for a task on
    /// a loop outside the group (a group that cannot list its loops has that one only).
    static func sweeps(for group: any EventLoopGroup) -> (byLoop: [ObjectIdentifier: IdleSweep], other: IdleSweep) {
        var sweeps: [ObjectIdentifier: IdleSweep] = [:]
        for loop in group.makeIterator() { sweeps[ObjectIdentifier(loop)] = IdleSweep(loop: loop) }
        return (sweeps, sweeps.values.first ?? IdleSweep(loop: group.any()))
    }

    /// Watches `delegate` until it ends or ``unwatch(_:)``.
    func watch(_ delegate: ResponseDelegate) {
        state.withLock { state in
            state.watched[ObjectIdentifier(delegate)] = delegate
            state.emptyTicks = 0
            guard state.ticking == nil else { return }
            state.ticking = loop.scheduleRepeatedTask(initialDelay: Self.interval, delay: Self.interval) { [weak self] task in
                guard let self else { return task.cancel() }
                tick()
            }
        }
    }

    /// Stops watching `delegate`.
    func unwatch(_ delegate: ResponseDelegate) {
        _ = state.withLock { $0.watched.removeValue(forKey: ObjectIdentifier(delegate)) }
    }

    /// Looks at every watched exchange once, under the lock (a delegate never takes this lock
    /// while it holds its own), and fails the expired ones after it; stops the check when nothing
    /// was watched for a while.
    private func tick() {
        let now = NIODeadline.now()
        let expired = state.withLock { state -> [HTTPClient.Task<TransportResponse>] in
            guard !state.watched.isEmpty else {
                state.emptyTicks += 1
                if state.emptyTicks >= Self.idleTicks {
                    state.ticking?.cancel()
                    state.ticking = nil
                }
                return []
            }
            state.emptyTicks = 0
            var expired: [HTTPClient.Task<TransportResponse>] = []
            var ended: [ObjectIdentifier] = []
            for (id, delegate) in state.watched {
                switch delegate.idleCheck(at: now) {
                case .active: break
                case .ended: ended.append(id)
                case .expired(let task): expired.append(task)
                }
            }
            for id in ended { state.watched.removeValue(forKey: id) }
            return expired
        }
        for task in expired { task.fail(reason: IdleTimeout()) }
    }
}
