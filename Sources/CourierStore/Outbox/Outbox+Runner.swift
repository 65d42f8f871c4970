import Courier
import Foundation
import GRDB

extension Outbox {
    /// The loop ``start()`` runs, and how to wake it.
    struct Runner: Sendable {
        var task: Task<Void, Never>?
        var wake: AsyncStream<Void>.Continuation?
    }

    /// Sends by itself until ``stop()``: a flush at once, then whenever the first waiting entry is
    /// due (its backoff, or the server's `Retry-After`), and right after every enqueue. One loop
    /// per outbox: calling `start()` again while it runs does nothing. The loop keeps the outbox
    /// alive until `stop()`.
    public func start() {
        runner.withLock { runner in
            guard runner.task == nil else { return }
            let (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            runner.wake = wake
            runner.task = Task { [self] in await run(wakeUps: wakeUps, wake: wake) }
        }
    }

    /// Ends the loop ``start()`` began; an attempt in flight finishes (or is cancelled) first.
    public func stop() {
        let stopped = runner.withLock { runner in
            defer { runner = Runner() }
            return runner
        }
        stopped.task?.cancel()
        stopped.wake?.finish()
    }

    /// Wakes the loop, if one runs (an entry was just enqueued).
    func wake() {
        runner.withLock { $0.wake }?.yield()
    }

    private func run(wakeUps: AsyncStream<Void>, wake: AsyncStream<Void>.Continuation) async {
        var wakeUp = wakeUps.makeAsyncIterator()
        while !Task.isCancelled {
            // A flush that fails to read or write the store is tried again at the next wake-up.
            _ = try? await flush()
            let timer = (try? await untilNextDue()).flatMap { $0 }.map { delay in
                Task {
                    try? await Task.sleep(for: delay)
                    wake.yield()
                }
            }
            let woken: Void? = await wakeUp.next()
            timer?.cancel()
            if woken == nil { return }
        }
    }

    /// How long until the first waiting entry is due; `nil` when nothing waits (an enqueue wakes the loop).
    private func untilNextDue() async throws -> Duration? {
        let (count, next) = try await store.database.read { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM courier_outbox") ?? 0
            let next = try Date.fetchOne(db, sql: "SELECT MIN(nextAttempt) FROM courier_outbox WHERE state = ?", arguments: [OutboxState.pending.name])
            return (count, next)
        }
        guard count > 0 else { return nil }
        // Entries but none with a time: in flight elsewhere, or behind one that is; look again later.
        guard let next else { return maximumDelay }
        // Compared as seconds first: a far `Retry-After` (or a date in a tampered file) is no
        // number of milliseconds an `Int64` holds.
        let seconds = max(0, next.timeIntervalSinceNow)
        guard seconds < maximumDelay.seconds else { return maximumDelay }
        return .seconds(seconds)
    }
}
