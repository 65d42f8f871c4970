/// Runs at most one credential refresh at a time and lets every request that hit a 401 share it,
/// in a ``WaitingRoom``.
///
/// A caller waits for the refresh in a place of its own: cancelling it ends its wait at once with
/// a `CancellationError`, while the refresh goes on for the others (and for the credentials it
/// stores), and a request that meets a 401 meanwhile joins it.
final class RefreshCoordinator: Sendable {
    /// A request waiting for the refresh: it brings nothing the outcome is handed to.
    final class Waiter: WaitingRoomGuest {
        /// The one waiter every caller brings: it holds nothing.
        static let shared = Waiter()
        func arrive(with outcome: Result<Bool, any Error>) {}
    }

    /// The refresh under way, if any.
    private let current = Locked<WaitingRoom<Waiter>?>(nil)

    /// Whether requests marked by the task-local are the authenticator's own.
    @TaskLocal static var isRefreshing = false

    /// Refreshes unless the credentials changed since the failed request was sent (`sentVersion`
    /// differs from `currentVersion()`), joining a refresh already under way.
    /// - Returns: whether to send the request again.
    /// - Throws: the refresh's error, or `CancellationError` when the caller is cancelled.
    func refresh(
        sentVersion: Int, currentVersion: @escaping @Sendable () -> Int, perform: @escaping @Sendable () async throws -> Bool
    ) async throws -> Bool {
        if Task.isCancelled { throw CancellationError() }
        enum Next { case answer(Bool), join(WaitingRoom<Waiter>, Int), lead(WaitingRoom<Waiter>) }
        let next: Next = current.withLock { running in
            if let room = running, let place = room.enter(Waiter.shared) { return .join(room, place) }
            if currentVersion() != sentVersion { return .answer(true) }
            let room = WaitingRoom(first: Waiter.shared, closesWhenEmpty: false)
            running = room
            return .lead(room)
        }
        switch next {
        case .answer(let again):
            return again
        case .join(let room, let place):
            return try await room.wait(in: place)
        case .lead(let room):
            Task {
                let outcome: Result<Bool, any Error>
                do {
                    outcome = .success(try await RefreshCoordinator.$isRefreshing.withValue(true) { try await perform() })
                } catch {
                    outcome = .failure(error)
                }
                self.current.withLock { running in
                    if running === room { running = nil }
                }
                room.finish(with: outcome)
            }
            return try await room.wait(in: 0)
        }
    }
}
