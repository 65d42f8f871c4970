import Foundation
import Synchronization

/// Who wants to hear that the server at an origin answered a request (the outbox: the next
/// successful request to an origin makes the writes waiting for it due). Free while nobody
/// listens: one atomic load per request.
package final class AnswerObservers: Sendable {
    /// Called with the origin (``Foundation/URL/origin``) of a request the network answered.
    package typealias Observer = @Sendable (_ origin: String) -> Void

    private let count = Atomic<Int>(0)
    private let observers = Locked<(next: Int, list: [(id: Int, run: Observer)])>((0, []))

    package init() {}

    /// Adds an observer; returns its number for ``remove(_:)``.
    package func add(_ observer: @escaping Observer) -> Int {
        observers.withLock { state in
            state.next += 1
            state.list.append((state.next, observer))
            count.store(state.list.count, ordering: .relaxed)
            return state.next
        }
    }

    /// Removes the observer numbered `id`.
    package func remove(_ id: Int) {
        observers.withLock { state in
            state.list.removeAll { $0.id == id }
            count.store(state.list.count, ordering: .relaxed)
        }
    }

    /// Tells every observer that a request to `url` was answered by the network.
    func notify(_ url: URL) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let list = observers.withLock { state in state.list.map(\.run) }
        let origin = url.origin
        for run in list { run(origin) }
    }
}
