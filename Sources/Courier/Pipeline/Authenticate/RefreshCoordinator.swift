/// Runs at most one credential refresh at a time and lets every request that hit a 401 share it.
///
/// A caller waits for the refresh with a continuation of its own: cancelling it ends its wait at
/// once with a `CancellationError`, while the refresh goes on for the others (and for the
/// credentials it stores).
final class RefreshCoordinator: Sendable {
    private struct State {
        var running = false
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, any Error>)] = []
        /// Callers cancelled before they started waiting.
        var departed: Set<Int> = []
        var nextID = 0
    }

    private let state = Locked(State())

    /// Whether requests marked by the task-local are the authenticator's own.
    @TaskLocal static var isRefreshing = false

    /// Refreshes unless the credentials changed since the failed request was sent (`sentVersion`
    /// differs from `currentVersion()`), joining a refresh already under way.
    /// - Returns: whether to send the request again.
    /// - Throws: the refresh's error, or `CancellationError` when the caller is cancelled.
    func refresh(
        sentVersion: Int, currentVersion: @escaping @Sendable () -> Int, perform: @escaping @Sendable () async throws -> Bool
    ) async throws -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                enum Next { case wait, start, answer(Result<Bool, any Error>) }
                let next: Next = state.withLock { state in
                    if state.departed.remove(id) != nil { return .answer(.failure(CancellationError())) }
                    if !state.running, currentVersion() != sentVersion { return .answer(.success(true)) }
                    state.waiters.append((id, continuation))
                    if state.running { return .wait }
                    state.running = true
                    return .start
                }
                switch next {
                case .wait: break
                case .answer(let result): continuation.resume(with: result)
                case .start:
                    Task {
                        let result: Result<Bool, any Error>
                        do {
                            result = .success(try await RefreshCoordinator.$isRefreshing.withValue(true) { try await perform() })
                        } catch {
                            result = .failure(error)
                        }
                        let waiters = self.state.withLock { state in
                            state.running = false
                            defer { state.waiters = [] }
                            return state.waiters
                        }
                        for waiter in waiters { waiter.continuation.resume(with: result) }
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.departed.insert(id)
                    return nil as CheckedContinuation<Bool, any Error>?
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
