import Dispatch

/// Delivers a request's progress reports to the user's handler on the callback queue, dropping any
/// report that would go backwards, so delivery is monotonic even on a concurrent queue.
final class ProgressRelay: Sendable {
    private struct Delivered {
        var completed: Int64 = -1
        var finished = false
    }

    private let handler: ProgressHandler
    private let queue: DispatchQueue
    private let delivered = Locked(Delivered())

    init(handler: @escaping ProgressHandler, queue: DispatchQueue) {
        self.handler = handler
        self.queue = queue
    }

    /// Schedules `progress` for delivery.
    func report(_ progress: TransferProgress) {
        queue.async {
            self.delivered.withLock { last in
                let advances = progress.completed > last.completed
                let finishes = progress.isFinished && !last.finished && progress.completed >= last.completed
                guard advances || finishes else { return }
                last.completed = progress.completed
                last.finished = progress.isFinished
                self.handler(progress)
            }
        }
    }

    /// Returns once every report scheduled before the call has been delivered (on a serial queue).
    func flush() async {
        await withCheckedContinuation { continuation in
            queue.async(flags: .barrier) { continuation.resume() }
        }
    }
}
