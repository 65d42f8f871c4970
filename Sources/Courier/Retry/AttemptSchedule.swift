/// The one place that decides whether work that failed is tried again, and how long to wait first:
/// a send's retries, a resumable download's resumes, an event stream's reconnects and an outbox
/// entry's next try all count their failures here and wait through ``wait(_:)``.
///
/// - The count and the budget run from the last progress (``progressed(at:)``): a download that
///   kept more bytes, or an event stream that brought an event, starts them again.
/// - The wait before retry `n` is drawn by ``RetryPolicy/jitteredDelay(beforeRetry:)`` (between
///   half and all of the doubling bound); a wait the server asked for (`Retry-After`) replaces it.
/// - A retry whose wait would end past the budget is not made.
/// - The wait ends at once, with `CancellationError`, when the task is cancelled.
package struct AttemptSchedule: Sendable {
    /// The attempts, waits and budget.
    package var policy: RetryPolicy
    /// Failed attempts since the last progress.
    package private(set) var failures = 0
    private var since: ContinuousClock.Instant

    /// A schedule whose budget starts `now`.
    package init(_ policy: RetryPolicy, now: ContinuousClock.Instant = .now) {
        self.policy = policy
        self.since = now
    }

    /// The work moved forward: the failures counted so far and the budget spent are forgotten.
    package mutating func progressed(at now: ContinuousClock.Instant = .now) {
        failures = 0
        since = now
    }

    /// Counts a failed attempt; returns the wait before the next one, or `nil` when the policy
    /// allows no more (its attempts used up, or the wait would end past its budget). `asked`, a
    /// wait the server named, replaces the drawn one.
    package mutating func retry(asked: Duration? = nil, now: ContinuousClock.Instant = .now) -> Duration? {
        failures += 1
        guard failures < policy.maximumAttempts else { return nil }
        let delay = asked ?? policy.jitteredDelay(beforeRetry: failures)
        guard now - since + delay <= policy.budget else { return nil }
        return delay
    }

    /// After a failed attempt of work that resumes from what it reached (a resumable download's
    /// bytes on disk, a resumable upload's confirmed bytes): counts it as progress when `now` passed
    /// `reached` (which it then becomes), and returns the wait before the next attempt, or `nil`
    /// when `error` ends the work: `resumes` false, the task cancelled, a failure or status the
    /// policy does not retry, or the policy spent. A `Retry-After` in the error's headers is the wait.
    package mutating func resume(
        after error: CourierError, reached: inout Int64, now: Int64, resumes: Bool = true
    ) -> Duration? {
        if now > reached {
            reached = now
            progressed()
        }
        guard resumes, !Task.isCancelled,
              policy.retries(error.kind) || error.statusCode.map(policy.retries(statusCode:)) == true
        else { return nil }
        return retry(asked: RetryAfter.delay(error.headers?["Retry-After"]))
    }

    /// Waits `delay`; throws `CancellationError` at once when the task is cancelled.
    package func wait(_ delay: Duration) async throws {
        try await Self.wait(delay, with: policy.sleeper)
    }

    /// Waits `delay` with `sleeper`; throws `CancellationError` at once when the task is cancelled.
    /// The one sleep of Courier's attempts, also for a caller that keeps no schedule (the outbox's
    /// wake-up at its next entry's due time).
    package static func wait(_ delay: Duration, with sleeper: any RetrySleeper = TaskSleeper()) async throws {
        try await sleeper.sleep(for: delay)
        try Task.checkCancellation()
    }
}

/// Waits between the attempts of a retried request.
///
/// ``RetryPolicy`` uses ``TaskSleeper``; Courier's tests pass one that records the delays it is
/// asked for and returns at once, to check a policy without waiting.
package protocol RetrySleeper: Sendable {
    /// Waits for `duration`; throws `CancellationError` at once when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// Sleeps with `Task.sleep`, which ends at once when the task is cancelled.
package struct TaskSleeper: RetrySleeper {
    /// Creates a sleeper.
    package init() {}

    /// Sleeps on the continuous clock.
    package func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
