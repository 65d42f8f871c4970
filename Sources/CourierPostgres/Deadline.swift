import Courier

/// An operation bounded in time: the caller gets its result, or ``TimedOut`` once the limit has
/// passed, and does not wait for an operation that ignores its cancellation.
enum Deadline {
    /// The operation took longer than its limit.
    struct TimedOut: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "the database did not answer within \(limit)" }
    }

    /// Who resumes the caller: the operation or the timer, whichever comes first.
    private enum Race {
        case running
        case over
    }

    static func run<Value: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let race = Locked(Race.running)
        let tasks = Locked<(work: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                /// Whether the caller is the first to finish the race.
                @Sendable func claim() -> Bool {
                    race.withLock { state in
                        guard case .running = state else { return false }
                        state = .over
                        return true
                    }
                }
                let work = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    guard claim() else { return }
                    tasks.withLock { $0.timer }?.cancel()
                    continuation.resume(with: result)
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    guard claim() else { return }
                    work.cancel()
                    continuation.resume(throwing: Task.isCancelled ? CancellationError() : TimedOut(limit: limit) as any Error)
                }
                tasks.withLock { $0 = (work, timer) }
            }
        } onCancel: {
            // The caller was cancelled: the timer ends the race at once, with a CancellationError.
            tasks.withLock { $0.timer }?.cancel()
        }
    }
}
