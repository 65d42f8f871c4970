import Synchronization

/// Handlers added and removed by number (logout work, answer observers): one list behind a lock,
/// and a count read without it, so code that calls them pays one atomic load while there are none.
package final class Registrations<Handler: Sendable>: Sendable {
    private let count = Atomic<Int>(0)
    private let state = Locked<(next: Int, list: [(id: Int, handler: Handler)])>((0, []))

    package init() {}

    /// Adds `handler`; returns its number for ``remove(_:)``.
    package func add(_ handler: Handler) -> Int {
        state.withLock { state in
            state.next += 1
            state.list.append((state.next, handler))
            count.store(state.list.count, ordering: .relaxed)
            return state.next
        }
    }

    /// Removes the handler numbered `id`.
    package func remove(_ id: Int) {
        state.withLock { state in
            state.list.removeAll { $0.id == id }
            count.store(state.list.count, ordering: .relaxed)
        }
    }

    /// The handlers, in the order they were added; empty without taking the lock when there are none.
    package var all: [Handler] {
        guard count.load(ordering: .relaxed) > 0 else { return [] }
        return state.withLock { state in state.list.map(\.handler) }
    }
}
