import Courier
import Foundation

extension Outbox {
    /// What an attempt's failure does to its entry.
    enum Decision: Equatable {
        /// Worth another attempt, after this wait (the server's `Retry-After` when it gave one).
        case retry(after: Duration?)
        /// Refused for good: a dead letter.
        case deadLetter
        /// 412: made on a version that has changed since; the conflict resolver decides.
        case conflict
        /// The flush was cancelled: the entry waits as it was.
        case stop
    }

    /// Sends every scope's due entries, scopes side by side and each in order, until each scope
    /// is empty or waits (an attempt failed in a way worth retrying, its first entry is not due
    /// yet, or waits for an entry of another scope that is still waiting). Safe beside
    /// ``enqueue(_:scope:after:applying:policy:)`` and beside another flush: an entry in flight
    /// is left to the flush that took it.
    /// - Throws: ``CourierError/Kind/store`` when the outbox cannot be read or written.
    @discardableResult
    public func flush() async throws(CourierError) -> OutboxFlush {
        do {
            try await makeDue()
        } catch {
            throw CourierError.store(error, path: store.path, doing: "read its outbox")
        }
        let now = Date()
        var total = OutboxFlush()
        // Rounds, while a round moved entries on and a scope waited for one of another scope.
        while !Task.isCancelled {
            let (round, blocked) = try await flushScopes(now: now)
            total.add(round)
            guard blocked, round.sent + round.deadLettered + round.discarded > 0 else { break }
        }
        total.remaining = try await count()
        return total
    }

    /// One round of ``flush()``: every scope's due entries, scopes side by side; whether a scope
    /// waited for an entry of another scope.
    private func flushScopes(now: Date) async throws(CourierError) -> (OutboxFlush, blocked: Bool) {
        let scopes = try await scopes()
        let outcomes = await withTaskGroup(of: Result<(OutboxFlush, blocked: Bool), CourierError>.self) { group in
            for scope in scopes {
                group.addTask {
                    do throws(CourierError) {
                        return .success(try await self.flush(scope: scope, now: now))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var all: [Result<(OutboxFlush, blocked: Bool), CourierError>] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        var round = OutboxFlush()
        var blocked = false
        for outcome in outcomes {
            let (part, waited) = try outcome.get()
            round.add(part)
            blocked = blocked || waited
        }
        return (round, blocked)
    }

    /// Sends `scope`'s entries that are due at `now`, in order, until one has to wait; whether it
    /// stopped at an entry waiting for one of another scope. A sent entry is removed in the same
    /// transaction that takes the next one.
    func flush(scope: String, now: Date) async throws(CourierError) -> (OutboxFlush, blocked: Bool) {
        var summary = OutboxFlush()
        var sent: StoredWrite?
        /// Entries the conflict resolver replaced in this flush.
        var replaced: Set<Int64> = []
        while !Task.isCancelled {
            let claim = try await claim(scope: scope, now: now, removing: sent)
            sent = nil
            bodies.remove(claim.buried.map(\.bodyFile))
            summary.deadLettered += claim.buried.count + claim.damaged
            guard let write = claim.write else { return (summary, claim.blocked) }
            let outcome: CourierError?
            do {
                try await write.send(through: client, bodies: bodies)
                outcome = nil
            } catch {
                outcome = error
            }
            guard let outcome else {
                sent = write
                summary.sent += 1
                continue
            }
            var decision = Self.decision(for: outcome, resolvingConflicts: conflictResolver != nil)
            // A replacement that conflicted too waits its backoff rather than loop with the resolver.
            if decision == .conflict, replaced.contains(write.id) { decision = .retry(after: nil) }
            switch decision {
            case .deadLetter:
                try await bury(write, because: outcome)
                if write.uploadProtocol != nil { await client.discardResumableUpload(write.uploadIdentifier) }
                summary.deadLettered += 1
            case .conflict:
                if try await resolve(OutboxConflict(entry: write.entry, error: outcome), of: write, into: &summary) { replaced.insert(write.id) }
            case .retry(let wait):
                let delay = wait ?? backoff(afterAttempt: write.attempts)
                try await postpone(write, until: Date().addingTimeInterval(delay.seconds), because: outcome)
                summary.deferred += 1
                return (summary, false)
            case .stop:
                try await postpone(write, until: Date(), because: outcome)
                return (summary, false)
            }
        }
        if let sent { try await remove(sent) }
        return (summary, false)
    }

    /// Asks the conflict resolver about a 412 and does what it says; whether it replaced the entry.
    private func resolve(_ conflict: OutboxConflict, of write: StoredWrite, into summary: inout OutboxFlush) async throws(CourierError) -> Bool {
        let resolution = await conflictResolver?(conflict) ?? .deadLetter
        switch resolution.action {
        case .deadLetter:
            try await bury(write, because: conflict.error)
            summary.deadLettered += 1
        case .discard:
            try await discard(write)
            summary.discarded += 1
        case .replace(let makeWire):
            do throws(CourierError) {
                try await replace(write, with: try makeWire(self))
                return true
            } catch where error.kind != .store {
                // A replacement that cannot be sent as described: the conflict stays a dead letter.
                var refusal = conflict.error
                refusal.message += " The resolver's replacement could not be kept: \(error.message)"
                try await bury(write, because: refusal)
                summary.deadLettered += 1
            }
        }
        return false
    }

    /// Whether a failed attempt is worth another (no answer, 401 (signed out: the write waits for
    /// the next sign-in), 408, 409 "in progress", 429, 5xx), a conflict for the resolver (412,
    /// when there is one), refused for good (another 4xx, or a write Courier cannot send as
    /// stored), or cancelled.
    static func decision(for error: CourierError, resolvingConflicts: Bool = false) -> Decision {
        if error.kind == .cancelled { return .stop }
        if let status = error.statusCode {
            if status == 412, resolvingConflicts { return .conflict }
            let retried = status == 401 || status == 408 || status == 409 || status == 429 || status >= 500
            return retried ? .retry(after: RetryAfter.delay(error.headers?["Retry-After"])) : .deadLetter
        }
        return error.kind.nature == .unsendable ? .deadLetter : .retry(after: nil)
    }

    /// The wait after `attempts` failed attempts, by the rule of every retry in Courier
    /// (``RetryPolicy/jitteredDelay(beforeRetry:)``): ``baseDelay`` doubled for each attempt after
    /// the first, at most ``maximumDelay``, drawn between half of that and all of it.
    func backoff(afterAttempt attempts: Int) -> Duration {
        RetryPolicy(baseDelay: baseDelay, maximumDelay: maximumDelay).jitteredDelay(beforeRetry: attempts)
    }
}
