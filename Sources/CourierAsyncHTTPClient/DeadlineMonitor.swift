import Courier

/// Ends exchanges whose deadline has passed, with one sleeping task for all of them.
///
/// A per-request timer (a sleeping child task, or a timer on an event loop) costs a task or a
/// cross-thread wake-up per request. Here a request only adds and removes an entry under a lock:
/// the monitor's task sleeps until the earliest deadline and is woken early only when a request
/// comes with an earlier deadline than any waiting one.
final class DeadlineMonitor: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the sleeping task wakes, if one is running.
        var wake: ContinuousClock.Instant?
        var sleeper: Task<Void, Never>?
        /// Which sleeping task is the current one; a replaced one stops at its next look.
        var generation: UInt64 = 0
    }

    private let state = Locked(State())

    /// The monitor every transport shares.
    static let shared = DeadlineMonitor()

    /// Calls `expire` once `deadline` has passed, unless ``remove(_:)`` came first.
    func register(_ deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, replaced) = state.withLock { state -> (UInt64, Task<Void, Never>?) in
            defer { state.nextID &+= 1 }
            state.entries[state.nextID] = Entry(deadline: deadline, expire: expire)
            if let wake = state.wake, wake <= deadline { return (state.nextID, nil) }
            let replaced = state.sleeper
            state.wake = deadline
            state.generation &+= 1
            let generation = state.generation
            state.sleeper = Task { [weak self] in await self?.watch(until: deadline, generation: generation) }
            return (state.nextID, replaced)
        }
        replaced?.cancel()
        return id
    }

    /// Forgets the entry `id`.
    func remove(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Sleeps until `wake`, ends what has expired, and goes on to the next deadline; stops when
    /// no entry is left or a task with an earlier wake-up replaced it.
    private func watch(until first: ContinuousClock.Instant, generation: UInt64) async {
        var wake = first
        while true {
            do {
                try await Task.sleep(until: wake, clock: .continuous)
            } catch {
                return  // replaced by a task that wakes earlier
            }
            let now = ContinuousClock.now
            let (expired, next): ([@Sendable () -> Void], ContinuousClock.Instant?) = state.withLock { state in
                guard state.generation == generation else { return ([], nil) }
                var expired: [@Sendable () -> Void] = []
                var next: ContinuousClock.Instant?
                for (id, entry) in state.entries {
                    if entry.deadline <= now {
                        expired.append(entry.expire)
                        state.entries[id] = nil
                    } else if next.map({ entry.deadline < $0 }) ?? true {
                        next = entry.deadline
                    }
                }
                state.wake = next
                if next == nil { state.sleeper = nil }
                return (expired, next)
            }
            expired.forEach { $0() }
            guard let next else { return }
            wake = next
        }
    }
}
