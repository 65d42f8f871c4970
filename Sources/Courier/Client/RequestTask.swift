
/// A handle on a request started with a callback: its identifier and a way to cancel it.
public final class RequestTask: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var finished = false
        var cancelled = false
    }

    /// The request's identifier.
    public let id: RequestID
    private let state = Locked(State())
    private let reportCancellation: @Sendable () -> Void

    init(id: RequestID, reportCancellation: @escaping @Sendable () -> Void) {
        self.id = id
        self.reportCancellation = reportCancellation
    }

    /// Cancels the request. Unless its callback has already been scheduled, the callback then runs
    /// once, with a ``CourierError/Kind/cancelled`` error. Safe from any thread at any moment,
    /// the main thread included: it never waits for the transport.
    public func cancel() {
        let (task, report): (Task<Void, Never>?, Bool) = state.withLock { state in
            state.cancelled = true
            defer { state.finished = true }
            return (state.task, !state.finished)
        }
        if report { reportCancellation() }
        task?.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the callback has been scheduled (with a result or a cancellation).
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Returns when the request's work has ended, after its callback was scheduled (or dropped,
    /// because a cancellation was reported first).
    public func waitUntilFinished() async {
        await state.withLock { $0.task }?.value
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Claims the right to call back; true once, for the first caller.
    /// Runs `deliver` (which queues a callback) unless the final callback was claimed or the task
    /// cancelled: an intermediate response (the cached one of ``CacheOption/both``) never follows
    /// the final one.
    func deliverIntermediate(_ deliver: () -> Void) {
        state.withLock { state in
            if !state.finished { deliver() }
        }
    }

    func claimCallback() -> Bool {
        state.withLock { state in
            defer { state.finished = true }
            return !state.finished
        }
    }
}
