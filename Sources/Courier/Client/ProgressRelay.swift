import Dispatch

/// Delivers one request's progress reports to its handler on the callback queue: in order, each
/// advancing on the last, never one after the final report, and never two at once, even on a
/// concurrent queue (deliveries go through a serial queue that targets it). The handler runs
/// outside every lock.
///
/// Reports are coalesced before they are queued: a transport reports every piece it moves (a
/// slow 100 KB body can arrive in a hundred thousand pieces), a user wants a progress bar. One
/// report passes per 1% of a known total, one per ``unknownTotalInterval`` while the total is
/// unknown, and the final one always.
final class ProgressRelay: Sendable {
    /// What passed the coalescing gate last.
    private struct Admitted {
        var completed: Int64 = -1
        var time: ContinuousClock.Instant?
        var finished = false
    }

    private struct Delivered {
        var completed: Int64 = -1
        var finished = false
    }

    /// The least time between two reports when the total is unknown: about a display frame.
    static let unknownTotalInterval = Duration.milliseconds(16)

    private let handler: ProgressHandler
    /// Serial, targeting the callback queue: one delivery at a time, in the order queued.
    private let queue: DispatchQueue
    private let delivered = Locked(Delivered())
    private let admitted = Locked(Admitted())

    init(handler: @escaping ProgressHandler, queue: DispatchQueue) {
        self.handler = handler
        self.queue = DispatchQueue(label: "Courier.progress", target: queue)
    }

    /// Schedules `progress` for delivery, unless it is too close to the last report scheduled.
    func report(_ progress: TransferProgress) {
        guard admit(progress) else { return }
        queue.async {
            let advances = self.delivered.withLock { last in
                let advances = progress.completed > last.completed
                let finishes = progress.isFinished && !last.finished && progress.completed >= last.completed
                guard advances || finishes else { return false }
                last.completed = progress.completed
                last.finished = progress.isFinished
                return true
            }
            if advances { self.handler(progress) }
        }
    }

    /// Whether `progress` passes the coalescing gate (and becomes the last one admitted).
    private func admit(_ progress: TransferProgress) -> Bool {
        admitted.withLock { last in
            guard !last.finished else { return false }
            if progress.isFinished {
                last.finished = true
                last.completed = progress.completed
                return true
            }
            guard progress.completed > last.completed else { return false }
            let now = progress.total == nil ? ContinuousClock.now : nil
            let due: Bool
            if last.completed < 0 {
                due = true
            } else if let total = progress.total, total > 0 {
                due = progress.completed - last.completed >= max(1, total / 100)
            } else if let now {
                due = last.time.map { now - $0 >= Self.unknownTotalInterval } ?? true
            } else {
                due = true
            }
            if due {
                last.completed = progress.completed
                last.time = now ?? last.time
            }
            return due
        }
    }

    /// Returns once every report scheduled before the call has been delivered.
    func flush() async {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume() }
        }
    }
}
