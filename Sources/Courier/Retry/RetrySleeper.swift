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
