import Courier

/// Responses held until a test lets them go: `GET /hold/{key}` waits until `key` is released.
final class HoldGate: Sendable {
    private struct State {
        var released: Set<String> = []
        var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// Returns once `key` is released, or at once if it already was or the task is cancelled.
    func wait(for key: String) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.released.contains(key) || Task.isCancelled { return true }
                    state.waiting[key, default: [:]][id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in state.waiting[key]?.removeValue(forKey: id) }
            continuation?.resume()
        }
    }

    /// Releases every request waiting for `key`, and every later one.
    func release(_ key: String) {
        let waiting = state.withLock { state in
            state.released.insert(key)
            return state.waiting.removeValue(forKey: key).map { Array($0.values) } ?? []
        }
        waiting.forEach { $0.resume() }
    }
}
