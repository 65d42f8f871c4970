import Foundation

/// The messages of a WebSocket between the task that reads them off the connection and the app's
/// reader: a bounded queue, so that a reader that is behind stops the reading from the socket.
///
/// The reading task waits in ``push(_:)`` while ``limit`` bytes or more are queued; the app's
/// reader waits in ``next()`` while none are. ``finish(_:dropping:)`` ends it: queued messages are
/// still read (unless dropped), then the failure is thrown once, then `nil`.
package final class WebSocketInbox: Sendable {
    private struct State {
        /// The queue from `head` on; the slots before it are taken (emptied at once, so that a
        /// message read is let go at once) and dropped when they are the larger part.
        var queue: [WebSocketMessage?] = []
        var head = 0
        var bytes = 0
        var reader: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>?
        var pusher: CheckedContinuation<Bool, Never>?
        var end: End?

        mutating func takeFirst() -> WebSocketMessage? {
            guard head < queue.count, let message = queue[head] else { return nil }
            queue[head] = nil
            head += 1
            bytes -= message.size
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return message
        }

        mutating func drop() {
            queue.removeAll()
            head = 0
            bytes = 0
        }
    }

    private enum End {
        case closed
        case failed(CourierError)
        case reported
    }

    private let state = Locked(State())
    /// The bytes queued at which the reading task waits (a single larger message is still taken).
    private let limit: Int

    package init(limit: Int = 1 << 20) {
        self.limit = limit
    }

    /// The slots the queue keeps, read ones included until they are dropped (for tests: a reader
    /// that never lets the queue empty must not keep every message it read).
    package var slots: Int { state.withLock { $0.queue.count } }

    /// Queues `message` for the reader, waiting while the queue is full; `false` once the inbox
    /// has ended (the reading task should stop).
    package func push(_ message: WebSocketMessage) async -> Bool {
        enum Step { case ended, handed(CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>), queued, full }
        let step = state.withLock { state -> Step in
            if state.end != nil { return .ended }
            if let reader = state.reader {
                state.reader = nil
                return .handed(reader)
            }
            state.queue.append(message)
            state.bytes += message.size
            return state.bytes < limit ? .queued : .full
        }
        switch step {
        case .ended: return false
        case .handed(let reader):
            reader.resume(returning: .success(message))
            return true
        case .queued: return true
        case .full:
            return await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool? in
                    if state.end != nil { return false }
                    if state.bytes < limit { return true }
                    state.pusher = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        }
    }

    /// The next message; `nil` once ended cleanly; the failure, once, when it ended with one.
    package func next() async throws(CourierError) -> WebSocketMessage? {
        enum Step { case message(WebSocketMessage, CheckedContinuation<Bool, Never>?), ended(CourierError?), wait, busy }
        func step(_ state: inout State) -> Step {
            if let message = state.takeFirst() {
                var pusher: CheckedContinuation<Bool, Never>?
                if state.bytes < limit {
                    pusher = state.pusher
                    state.pusher = nil
                }
                return .message(message, pusher)
            }
            switch state.end {
            case .failed(let failure):
                state.end = .reported
                return .ended(failure)
            case .closed, .reported: return .ended(nil)
            case nil: return state.reader == nil ? .wait : .busy
            }
        }
        switch state.withLock({ step(&$0) }) {
        case .message(let message, let pusher):
            pusher?.resume(returning: true)
            return message
        case .ended(let failure):
            if let failure { throw failure }
            return nil
        case .busy:
            throw CourierError(.invalidRequest, "A WebSocket is read by one reader at a time; another task is reading this one.")
        case .wait:
            let result = await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Result<WebSocketMessage?, CourierError>? in
                    switch step(&state) {
                    case .message(let message, let pusher):
                        pusher?.resume(returning: true)
                        return .success(message)
                    case .ended(let failure): return failure.map { .failure($0) } ?? .success(nil)
                    case .busy: return .failure(CourierError(.invalidRequest, "A WebSocket is read by one reader at a time; another task is reading this one."))
                    case .wait:
                        state.reader = continuation
                        return nil
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
            return try result.get()
        }
    }

    /// Ends the inbox: with `failure` (thrown to the reader once the queue is read) or cleanly;
    /// `dropping` discards what is queued. Later calls do nothing.
    package func finish(_ failure: CourierError?, dropping: Bool) {
        let (reader, pusher) = state.withLock { state -> (CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>?, CheckedContinuation<Bool, Never>?) in
            guard state.end == nil else { return (nil, nil) }
            if dropping { state.drop() }
            let reader = state.reader
            state.reader = nil
            let pusher = state.pusher
            state.pusher = nil
            // A waiting reader means an empty queue: it gets the end now.
            state.end = reader != nil ? (failure != nil ? .reported : .closed) : (failure.map { .failed($0) } ?? .closed)
            return (reader, pusher)
        }
        pusher?.resume(returning: false)
        reader?.resume(returning: failure.map { .failure($0) } ?? .success(nil))
    }
}
