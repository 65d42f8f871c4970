/// One network exchange that identical in-flight requests wait on together.
///
/// Each waiter has its own continuation and progress observer. The exchange runs apart from every
/// waiter's task (on a ``CallbackTransport``, in the transport's own callbacks; on another transport,
/// in a task of its own), so a waiter that is cancelled just leaves: the exchange goes on while
/// anyone waits, and is cancelled when the last waiter leaves.
final class SharedExchange: Sendable {
    /// How the exchange runs.
    enum Body: Sendable {
        /// In a task of its own.
        case task(@Sendable (TransferObserver) async throws -> TransportResponse)
        /// Started on a ``CallbackTransport``, which calls back with the outcome.
        case callback(@Sendable (TransferObserver, @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> TransportCancellation)
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<TransportResponse, any Error>
        let observer: TransferObserver
    }

    private struct State {
        // Arrays, not sets: an exchange nearly always has one waiter, and small arrays cost no
        // hashing and fewer allocations.
        var waiters: [Waiter] = []
        /// Places taken by ``reserve()`` whose waiter has not arrived yet.
        var reserved: [Int] = []
        /// Reserved places whose caller was cancelled before it arrived.
        var departed: [Int] = []
        var nextID = 0
        var result: Result<TransportResponse, any Error>?
        /// Stops the exchange (cancels its task, or the transport's exchange).
        var stop: (@Sendable () -> Void)?
        /// Every waiter left before the end: the exchange is being cancelled and takes no one new.
        var abandoned = false
    }

    private let state = Locked(State())

    /// Takes a place for a caller about to wait, or `nil` when the exchange is being abandoned or
    /// has ended: a request made after the answer was delivered is a new request, not a copy of
    /// one in flight (the exchange leaves ``InFlightExchanges`` a moment after it ends, and a caller
    /// can arrive in that moment).
    func reserve() -> Int? {
        state.withLock { state in
            guard !state.abandoned, state.result == nil else { return nil }
            defer { state.nextID += 1 }
            state.reserved.append(state.nextID)
            return state.nextID
        }
    }

    /// Starts the exchange; `body` gets an observer that reports to every waiter.
    func start(_ body: Body, finished: @escaping @Sendable () -> Void) {
        // Strong captures: the observer lives only as long as the exchange (a weak reference
        // would cost every exchange a side-table allocation).
        let observer = TransferObserver(
            upload: { progress in self.forEachObserver { $0.upload?(progress) } },
            download: { progress in self.forEachObserver { $0.download?(progress) } })
        switch body {
        case .task(let body):
            startTask(body, observer: observer, finished: finished)
        case .callback(let start):
            let stop = start(observer) { result in
                self.complete(with: result)
                finished()
            }
            install(stop)
        }
    }

    /// Keeps `stop` for when the last waiter leaves, or calls it now if everyone has left.
    private func install(_ stop: @escaping @Sendable () -> Void) {
        let abandoned = state.withLock { state in
            state.stop = stop
            return state.abandoned
        }
        if abandoned { stop() }
    }

    private func startTask(
        _ body: @escaping @Sendable (TransferObserver) async throws -> TransportResponse, observer: TransferObserver,
        finished: @escaping @Sendable () -> Void
    ) {
        let run: @Sendable () async -> Void = {
            let result: Result<TransportResponse, any Error>
            do {
                result = .success(try await body(observer))
            } catch {
                result = .failure(error)
            }
            self.complete(with: result)
            finished()
        }
        // Started on the calling thread, so an exchange costs no hop to another thread until the
        // transport itself suspends.
        let task: Task<Void, Never>
        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
            task = Task.immediate { await run() }
        } else {
            task = Task { await run() }
        }
        install { task.cancel() }
    }

    /// Waits in the place `id` for the exchange's result; cancelling the caller leaves the place
    /// at once with a `CancellationError`.
    func wait(in id: Int, observer: TransferObserver) async throws -> TransportResponse {
        // An exchange that ended before its caller waited (an answer at once) needs no continuation.
        let ended: Result<TransportResponse, any Error>? = state.withLock { state in
            guard let result = state.result, state.reserved.take(id) else { return nil }
            _ = state.departed.take(id)
            return result
        }
        if let ended { return try ended.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let early: Result<TransportResponse, any Error>? = state.withLock { state in
                    _ = state.reserved.take(id)
                    if state.departed.take(id) { return .failure(CancellationError()) }
                    if let result = state.result { return result }
                    state.waiters.append(Waiter(id: id, continuation: continuation, observer: observer))
                    return nil
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Removes the waiter in place `id`, resuming it with a `CancellationError`; cancels the
    /// exchange when no one is left.
    private func leave(_ id: Int) {
        let (waiter, stop): (Waiter?, (@Sendable () -> Void)?) = state.withLock { state in
            guard state.result == nil else { return (nil, nil) }
            let waiter = state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            if waiter == nil, state.reserved.take(id) { state.departed.append(id) }
            guard state.waiters.isEmpty, state.reserved.isEmpty, !state.abandoned else { return (waiter, nil) }
            state.abandoned = true
            return (waiter, state.stop)
        }
        waiter?.continuation.resume(throwing: CancellationError())
        stop?()
    }

    private func complete(with result: Result<TransportResponse, any Error>) {
        let waiters = state.withLock { state in
            state.result = result
            // The way to stop the exchange can hold what holds this exchange (a transport's
            // callback calls back into it): let it go now that there is nothing to stop.
            state.stop = nil
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(with: result) }
    }

    private func forEachObserver(_ report: (TransferObserver) -> Void) {
        let observers = state.withLock { state in state.waiters.map(\.observer) }
        for observer in observers { report(observer) }
    }
}

extension [Int] {
    /// Removes `id` if present; whether it was.
    fileprivate mutating func take(_ id: Int) -> Bool {
        guard let index = firstIndex(of: id) else { return false }
        remove(at: index)
        return true
    }
}
