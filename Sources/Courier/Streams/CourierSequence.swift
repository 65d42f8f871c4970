/// The one `AsyncSequence` Courier returns for values that arrive over time: a stream's lines,
/// events and NDJSON values (``ResponseStream``), an event stream across reconnects
/// (``APIClient/events(_:reconnection:)``) and a request's responses (``APIClient/responses(_:)``).
/// Iteration ends early only with a ``CourierError``.
public struct CourierSequence<Element>: AsyncSequence, Sendable {
    /// What ends the sequence early.
    public typealias Failure = CourierError

    private let source: any CourierSource<Element>

    init(_ source: some CourierSource<Element>) {
        self.source = source
    }

    init(_ start: @escaping @Sendable () -> any CourierIterator<Element>) {
        source = StartClosure(closure: start)
    }

    /// A reader from the start (a stream's body can be read once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: source.start())
    }

    /// Reads the values in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: any CourierIterator<Element>

        /// The next value; `nil` at the end.
        public mutating func next() async throws(CourierError) -> Element? {
            try await base.next()
        }
    }
}

/// What reads one of Courier's sequences (``CourierSequence``).
protocol CourierIterator<Element> {
    associatedtype Element
    mutating func next() async throws(CourierError) -> Element?
}

/// What starts a reader of a ``CourierSequence``: a closure, or a type of its own where a closure
/// would capture a metatype that is not `Sendable` (``ResponseStream/values(of:)``).
protocol CourierSource<Element>: Sendable {
    associatedtype Element
    func start() -> any CourierIterator<Element>
}

private struct StartClosure<Element>: CourierSource {
    let closure: @Sendable () -> any CourierIterator<Element>

    func start() -> any CourierIterator<Element> { closure() }
}
