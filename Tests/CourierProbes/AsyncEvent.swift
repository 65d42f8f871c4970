import Courier

/// Something that happens once: ``wait()`` returns as soon as ``signal()`` has been called, before
/// or after the wait began.
package final class AsyncEvent: Sendable {
    private struct State {
        var fired = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Marks the event as happened and wakes every waiter; later calls do nothing.
    package func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether ``signal()`` was called.
    package var hasFired: Bool { state.withLock { $0.fired } }

    /// Returns once the event has happened.
    package func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}
