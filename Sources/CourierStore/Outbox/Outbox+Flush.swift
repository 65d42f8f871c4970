import Courier
import Foundation

extension Outbox {
    /// What an attempt's failure does to its entry.
    enum Decision: Equatable {
        /// Worth another attempt, after this wait (the server's `Retry-After` when it gave one).
        case retry(after: Duration?)
        /// Refused for good: a dead letter.
        case deadLetter
        /// The flush was cancelled: the entry waits as it was.
        case stop
    }

    /// Sends every scope's due entries, scopes side by side and each in order, until each scope
    /// is empty or waits (an attempt failed in a way worth retrying, or its first entry is not due
    /// yet). Safe beside ``enqueue(_:scope:)`` and beside another flush: an entry in flight is
    /// left to the flush that took it.
    /// - Throws: ``CourierError/Kind/store`` when the outbox cannot be read or written.
    @discardableResult
    public func flush() async throws(CourierError) -> OutboxFlush {
        let scopes = try await scopes()
        let now = Date()
        let outcomes = await withTaskGroup(of: Result<OutboxFlush, CourierError>.self) { group in
            for scope in scopes {
                group.addTask {
                    do throws(CourierError) {
                        return .success(try await self.flush(scope: scope, now: now))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var all: [Result<OutboxFlush, CourierError>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        var total = OutboxFlush()
        for outcome in outcomes {
            let part = try outcome.get()
            total.sent += part.sent
            total.deferred += part.deferred
            total.deadLettered += part.deadLettered
        }
        total.remaining = try await count()
        return total
    }

    /// Sends `scope`'s entries that are due at `now`, in order, until one has to wait. A sent
    /// entry is removed in the same transaction that takes the next one.
    func flush(scope: String, now: Date) async throws(CourierError) -> OutboxFlush {
        var summary = OutboxFlush()
        var sent: Int64?
        while !Task.isCancelled, let write = try await claim(scope: scope, now: now, removing: sent) {
            sent = nil
            let outcome: CourierError?
            do {
                _ = try await client.send(write.request)
                outcome = nil
            } catch {
                outcome = error
            }
            guard let outcome else {
                sent = write.id
                summary.sent += 1
                continue
            }
            switch Self.decision(for: outcome) {
            case .deadLetter:
                try await bury(write, because: outcome)
                summary.deadLettered += 1
            case .retry(let wait):
                let delay = wait ?? backoff(afterAttempt: write.attempts)
                try await postpone(write, until: Date().addingTimeInterval(delay.seconds), because: outcome)
                summary.deferred += 1
                return summary
            case .stop:
                try await postpone(write, until: Date(), because: outcome)
                return summary
            }
        }
        if let sent { try await remove(sent) }
        return summary
    }

    /// Whether a failed attempt is worth another (no answer, 401 (signed out: the write waits for
    /// the next sign-in), 408, 409 "in progress", 429, 5xx), refused for good (another 4xx, or a
    /// write Courier cannot send as stored), or cancelled.
    static func decision(for error: CourierError) -> Decision {
        if error.kind == .cancelled { return .stop }
        if let status = error.statusCode {
            let retried = status == 401 || status == 408 || status == 409 || status == 429 || status >= 500
            return retried ? .retry(after: RetryAfter.delay(error.headers?["Retry-After"])) : .deadLetter
        }
        switch error.kind {
        case .invalidRequest, .encodingFailed, .invalidURL: return .deadLetter
        default: return .retry(after: nil)
        }
    }

    /// The wait after `attempts` failed attempts: ``baseDelay`` doubled for each one after the
    /// first, at most ``maximumDelay``.
    func backoff(afterAttempt attempts: Int) -> Duration {
        var delay = baseDelay
        for _ in 1..<max(1, min(attempts, 32)) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }
}
