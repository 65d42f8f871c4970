/// One network exchange that identical in-flight requests wait on together.
///
/// Each caller takes a place with its own progress observer when it joins, and waits in it with
/// its own continuation. The exchange runs apart from every caller's task, on the transport's
/// callbacks, so a caller that is cancelled just leaves: the exchange goes on while anyone waits,
/// and is stopped when the last caller leaves.
///
/// An exchange nobody joins is the common case, and costs little: the first place is the only
/// array the exchange allocates, and the result is kept only for a caller that has not come to
/// wait yet.
final class SharedExchange: Sendable {
    fileprivate struct Place {
        let id: Int
        let observer: TransferObserver
        /// Set once the caller waits.
        var continuation: CheckedContinuation<TransportResponse, any Error>?
    }

    fileprivate struct State {
        // Arrays, not sets: an exchange nearly always has one caller, and small arrays cost no
        // hashing and fewer allocations.
        var places: [Place] = []
        /// Places whose caller was cancelled before it waited.
        var departed: [Int] = []
        var nextID = 0
        /// The exchange has ended: it takes no one new, and has nothing left to stop.
        var ended = false
        /// The outcome, kept after the end only for callers that took a place but had not waited.
        var result: Result<TransportResponse, any Error>?
        /// Stops the exchange; `nil` before it started and after it ended.
        var exchange: RedirectingExchange?
        /// Every caller left before the end: the exchange is being stopped and takes no one new.
        var abandoned = false
        /// Whether the exchange reports download progress to its callers (its first caller asked).
        var reportsDownload = false
    }

    private let state: Locked<State>
    /// The table the exchange leaves when it ends, and its key there (kept here rather than in a
    /// completion closure: one allocation less per exchange).
    private let table: InFlightExchanges
    let key: ExchangeKey

    /// An exchange for `key` in `table`, whose first place, number 0, is taken by a caller with
    /// `observer`.
    init(key: ExchangeKey, table: InFlightExchanges, first observer: TransferObserver) {
        var state = State()
        state.places.append(Place(id: 0, observer: observer))
        state.nextID = 1
        state.reportsDownload = observer.download != nil
        self.state = Locked(state)
        self.key = key
        self.table = table
    }

    /// Takes a place for a caller about to wait, with the observer its progress goes to from now
    /// on; `nil` when the exchange is being abandoned or has ended: a request made after the answer
    /// was delivered is a new request, not a copy of one in flight (the exchange leaves
    /// ``InFlightExchanges`` a moment after it ends, and a caller can arrive in that moment).
    func reserve(observer: TransferObserver) -> Int? {
        state.withLock { state in
            guard !state.abandoned, !state.ended else { return nil }
            defer { state.nextID += 1 }
            state.places.append(Place(id: state.nextID, observer: observer))
            return state.nextID
        }
    }

    /// The observer to give the transport: it reports progress only when the first caller asked
    /// for progress (an exchange nobody watches costs no report per piece), to every caller then.
    /// A caller that asked for download progress and joined an exchange that reports none gets the
    /// final report.
    func fanOut(for first: TransferObserver) -> TransferObserver {
        // Strong captures: the observer lives only as long as the exchange.
        var observer = TransferObserver()
        if first.upload != nil {
            observer.upload = { progress in self.forEachObserver { $0.upload?(progress) } }
        }
        if first.download != nil {
            observer.download = { progress in self.forEachObserver { $0.download?(progress) } }
        }
        return observer
    }

    /// Starts `exchange`; once it has ended and its callers have their outcome, the exchange
    /// leaves the table.
    func start(_ exchange: RedirectingExchange) {
        exchange.start { result in
            self.complete(with: result)
            self.table.remove(self)
        }
        // Keep the exchange for when the last caller leaves, or stop it now if everyone has left;
        // not when it already ended (a transport that completed before it returned).
        let stopNow = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.exchange = exchange
            return state.abandoned
        }
        if stopNow { exchange.cancel() }
    }

    /// Waits in the place `id` for the exchange's result; cancelling the caller leaves the place
    /// at once with a `CancellationError`.
    func wait(in id: Int) async throws -> TransportResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let early: Ended? = state.withLock { state in
                    if let ended = state.takeEnded(id) { return ended }
                    guard let index = state.places.firstIndex(where: { $0.id == id }) else {
                        return Ended(result: .failure(CancellationError()), finalReportTo: nil)
                    }
                    state.places[index].continuation = continuation
                    return nil
                }
                if let early { continuation.resume(with: Result { try Self.deliver(early) }) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Removes the caller in place `id`, resuming it with a `CancellationError` if it waits;
    /// stops the exchange when no one is left.
    private func leave(_ id: Int) {
        let (left, stop): (Place?, RedirectingExchange?) = state.withLock { state in
            guard !state.ended, let index = state.places.firstIndex(where: { $0.id == id }) else { return (nil, nil) }
            let place = state.places.remove(at: index)
            if place.continuation == nil { state.departed.append(id) }
            guard state.places.isEmpty, !state.abandoned else { return (place, nil) }
            state.abandoned = true
            return (place, state.exchange)
        }
        left?.continuation?.resume(throwing: CancellationError())
        stop?.cancel()
    }

    private func complete(with result: Result<TransportResponse, any Error>) {
        let (waiting, reportsDownload) = state.withLock { state in
            state.ended = true
            // The exchange can hold what holds this one (a transport's callback calls back into
            // it): let it go now that there is nothing to stop.
            state.exchange = nil
            // Every place usually waits: take the array whole, and put back the rare caller that
            // took a place but has not come to wait (it finds the result kept for it).
            var waiting: [Place] = []
            swap(&waiting, &state.places)
            if waiting.contains(where: { $0.continuation == nil }) {
                state.places = waiting.filter { $0.continuation == nil }
                waiting.removeAll { $0.continuation == nil }
                state.result = result
            }
            return (waiting, state.reportsDownload)
        }
        for place in waiting {
            if !reportsDownload { Self.reportFinal(result, to: place.observer) }
            place.continuation?.resume(with: result)
        }
    }

    /// The outcome for a caller that found the exchange ended when it came to wait.
    fileprivate struct Ended {
        let result: Result<TransportResponse, any Error>
        /// The caller's observer, when it asked for download progress the exchange did not report.
        let finalReportTo: TransferObserver?
    }

    private static func deliver(_ ended: Ended) throws -> TransportResponse {
        if let observer = ended.finalReportTo { reportFinal(ended.result, to: observer) }
        return try ended.result.get()
    }

    /// The one download report of a caller whose exchange reported none: the whole body.
    fileprivate static func reportFinal(_ result: Result<TransportResponse, any Error>, to observer: TransferObserver) {
        guard let download = observer.download, case .success(let response) = result else { return }
        let count = Int64(response.body.count)
        download(TransferProgress(completed: count, total: count))
    }

    private func forEachObserver(_ report: (TransferObserver) -> Void) {
        let observers = state.withLock { state in state.places.map(\.observer) }
        for observer in observers { report(observer) }
    }
}

extension SharedExchange.State {
    /// The result for the caller in place `id` when the exchange has ended (a cancellation for a
    /// caller that left), taking the place.
    fileprivate mutating func takeEnded(_ id: Int) -> SharedExchange.Ended? {
        if let index = departed.firstIndex(of: id) {
            departed.remove(at: index)
            return SharedExchange.Ended(result: .failure(CancellationError()), finalReportTo: nil)
        }
        guard ended, let result else { return nil }
        let place = places.firstIndex(where: { $0.id == id }).map { places.remove(at: $0) }
        return SharedExchange.Ended(result: result, finalReportTo: reportsDownload ? nil : place?.observer)
    }
}
