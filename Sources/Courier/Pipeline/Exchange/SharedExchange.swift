/// One network exchange that identical in-flight requests wait on together.
///
/// Each caller takes a place in the exchange's ``WaitingRoom`` with its own progress observer when
/// it joins, and waits in it with its own continuation. The exchange runs apart from every
/// caller's task, on the transport's callbacks, so a caller that is cancelled just leaves: the
/// exchange goes on while anyone waits, and is stopped (through its ``ExchangeControl``) when the
/// last caller leaves.
///
/// An exchange nobody joins is the common case, and costs little: the first place is the only
/// array the exchange allocates, and the result is kept only for a caller that has not come to
/// wait yet.
final class SharedExchange: Sendable {
    /// A caller of the exchange: its progress observer, and whether it is owed the one final
    /// download report of an exchange that reports no progress.
    struct Caller: WaitingRoomGuest {
        let observer: TransferObserver
        let reportsFinal: Bool

        /// The one download report of a caller whose exchange reported none: the whole body.
        func arrive(with outcome: Result<TransportResponse, any Error>) {
            guard reportsFinal, let download = observer.download, case .success(let response) = outcome else { return }
            let count = Int64(response.body.count)
            download(TransferProgress(completed: count, total: count))
        }
    }

    private let room: WaitingRoom<Caller>
    /// Stops the exchange when the last caller leaves, also before it has started.
    private let control = ExchangeControl()
    /// Whether the exchange reports download progress to its callers (its first caller asked).
    private let reportsDownload: Bool
    /// The table the exchange leaves when it ends, and its key there (kept here rather than in a
    /// completion closure: one allocation less per exchange).
    private let table: InFlightExchanges
    let key: ExchangeKey

    /// An exchange for `key` in `table`, whose first place, number 0, is taken by a caller with
    /// `observer`.
    init(key: ExchangeKey, table: InFlightExchanges, first observer: TransferObserver) {
        reportsDownload = observer.download != nil
        room = WaitingRoom(first: Caller(observer: observer, reportsFinal: false), closesWhenEmpty: true)
        self.key = key
        self.table = table
    }

    /// Takes a place for a caller about to wait, with the observer its progress goes to from now
    /// on; `nil` when the exchange is being abandoned or has ended: a request made after the answer
    /// was delivered is a new request, not a copy of one in flight (the exchange leaves
    /// ``InFlightExchanges`` a moment after it ends, and a caller can arrive in that moment).
    func reserve(observer: TransferObserver) -> Int? {
        room.enter(Caller(observer: observer, reportsFinal: !reportsDownload))
    }

    /// The observer to give the transport: it reports progress only when the first caller asked
    /// for progress (an exchange nobody watches costs no report per piece), to every caller then.
    /// A caller that asked for download progress and joined an exchange that reports none gets the
    /// final report.
    func fanOut(for first: TransferObserver) -> TransferObserver {
        // Strong captures: the observer lives only as long as the exchange.
        var observer = TransferObserver()
        if first.upload != nil {
            observer.upload = { progress in self.room.guests.forEach { $0.observer.upload?(progress) } }
        }
        if first.download != nil {
            observer.download = { progress in self.room.guests.forEach { $0.observer.download?(progress) } }
        }
        return observer
    }

    /// Starts `exchange`; once it has ended and its callers have their outcome, the exchange
    /// leaves the table.
    func start(_ exchange: RedirectingExchange) {
        exchange.start { result in
            // The exchange can hold what holds this one (a transport's callback calls back into
            // it): let it go now that there is nothing to stop.
            self.control.finish()
            self.room.finish(with: result)
            self.table.remove(self)
        }
        control.attach(exchange.cancel)
    }

    /// Waits in the place `id` for the exchange's result; cancelling the caller leaves the place
    /// at once with a `CancellationError`, and the last caller to leave stops the exchange.
    func wait(in id: Int) async throws -> TransportResponse {
        try await room.wait(in: id) { control.cancel() }
    }
}
