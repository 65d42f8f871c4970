
/// Runs at most one credential refresh at a time and lets every request that hit a 401 share it.
final class RefreshCoordinator: Sendable {
    private let inFlight = Locked<Task<Bool, any Error>?>(nil)

    /// Whether requests marked by the task-local are the authenticator's own.
    @TaskLocal static var isRefreshing = false

    /// Refreshes unless the credentials changed since the failed request was sent (`sentVersion`
    /// differs from `currentVersion()`), joining a refresh already under way.
    func refresh(
        sentVersion: Int, currentVersion: @Sendable () -> Int, perform: @escaping @Sendable () async throws -> Bool
    ) async throws -> Bool {
        let task: Task<Bool, any Error> = inFlight.withLock { running in
            if let running { return running }
            if currentVersion() != sentVersion { return Task { true } }
            let task = Task { try await RefreshCoordinator.$isRefreshing.withValue(true) { try await perform() } }
            running = task
            return task
        }
        let result = await task.result
        inFlight.withLock { running in
            if running == task { running = nil }
        }
        return try result.get()
    }
}
