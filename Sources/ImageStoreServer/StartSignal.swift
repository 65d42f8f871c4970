import Courier
import NIOCore

/// Hands the listening socket (or a start failure) from the server task to ``ImageStoreServer/start(_:logger:)``, once.
final class StartSignal: Sendable {
    /// The socket the server accepts connections on.
    struct Listening: Sendable {
        /// Its port.
        var port: Int
        /// Succeeds when the socket is closed (the server stopped accepting).
        var closed: EventLoopFuture<Void>
    }

    private struct State {
        var result: Result<Listening, any Error>?
        var waiter: CheckedContinuation<Listening, any Error>?
    }

    private let state = Locked(State())

    func succeed(_ listening: Listening) { complete(.success(listening)) }

    func fail(_ error: any Error) { complete(.failure(error)) }

    func wait() async throws -> Listening {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<Listening, any Error>? = state.withLock { state in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }

    private func complete(_ result: Result<Listening, any Error>) {
        let waiter: CheckedContinuation<Listening, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }
}
