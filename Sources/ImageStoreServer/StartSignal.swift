import Courier

/// Hands the listening port (or a start failure) from the server task to ``ImageStoreServer/start(_:logger:)``, once.
final class StartSignal: Sendable {
    private struct State {
        var result: Result<Int, any Error>?
        var waiter: CheckedContinuation<Int, any Error>?
    }

    private let state = Locked(State())

    func succeed(_ port: Int) { complete(.success(port)) }

    func fail(_ error: any Error) { complete(.failure(error)) }

    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<Int, any Error>? = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }

    private func complete(_ result: Result<Int, any Error>) {
        let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }
}
