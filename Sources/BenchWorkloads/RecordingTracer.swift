import Courier
import Tracing

/// A tracer that keeps what an exporter needs of every span (its name, attributes, status and
/// errors, handed over when it ends) and propagates a W3C `traceparent` header: the least a real
/// tracer does, for measuring what Courier's tracing costs a request. `InMemoryTracer` (from
/// swift-distributed-tracing) does much more per span (seven locked boxes, a table of active
/// spans, a log of every injection), so it measures the tracer more than Courier.
package final class RecordingTracer: Tracer {
    /// What the tracer was handed by the spans that ended.
    package struct Totals: Sendable {
        /// Spans ended.
        package var spans = 0
        /// Attributes on them, all together.
        package var attributes = 0
        /// Spans that ended with an error status.
        package var failed = 0
        /// Errors recorded on them.
        package var errors = 0
        /// Their durations, added up, in nanoseconds.
        package var nanoseconds: UInt64 = 0
    }

    private let state = Locked<(next: UInt64, totals: Totals)>((1, Totals()))

    /// Creates a tracer with no spans.
    package init() {}

    /// The totals so far.
    package var totals: Totals { state.withLock { $0.totals } }

    /// Starts a span named `operationName` under `context`'s.
    package func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> RecordedSpan {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        var context = context()
        context[RecordedSpan.IDKey.self] = id
        return RecordedSpan(name: operationName, context: context, start: instant().nanosecondsSinceEpoch) { span in
            self.state.withLock { state in
                state.totals.spans += 1
                state.totals.attributes += span.attributes.count
                if span.status?.code == .error { state.totals.failed += 1 }
                state.totals.errors += span.errors
                state.totals.nanoseconds &+= span.end &- span.start
            }
        }
    }

    /// Nothing to flush: spans are counted as they end.
    package func forceFlush() {}

    /// Reads nothing: the benchmark's requests arrive with no context.
    package func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    /// `00-<trace id>-<span id>-01`, with the span's number as both ids (the trace id padded to
    /// 32 hex digits), in the package's hex writer.
    static func traceparent(_ id: UInt64) -> String {
        let hex = withUnsafeBytes(of: id.bigEndian) { $0.hex }
        return "00-0000000000000000" + hex + "-" + hex + "-01"
    }

    /// Writes the span's `traceparent` into `carrier`.
    package func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let id = context[RecordedSpan.IDKey.self] else { return }
        injector.inject(Self.traceparent(id), forKey: "traceparent", into: &carrier)
    }
}

/// A span of ``RecordingTracer``: its state behind one lock, handed to the tracer when it ends.
package final class RecordedSpan: Span {
    enum IDKey: ServiceContextKey {
        typealias Value = UInt64
    }

    /// What a span holds until it ends.
    struct State {
        var name: String
        var attributes = SpanAttributes()
        var status: SpanStatus?
        var errors = 0
        var start: UInt64
        var end: UInt64 = 0
        var ended = false
    }

    /// The span's context, holding its number.
    package let context: ServiceContext
    private let state: Locked<State>
    private let onEnd: @Sendable (State) -> Void

    init(name: String, context: ServiceContext, start: UInt64, onEnd: @escaping @Sendable (State) -> Void) {
        self.context = context
        self.state = Locked(State(name: name, start: start))
        self.onEnd = onEnd
    }

    /// The span's name.
    package var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    /// The span's attributes.
    package var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    /// Whether the span has not ended.
    package var isRecording: Bool { state.withLock { !$0.ended } }

    /// Keeps `status`.
    package func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }
    /// Not kept: Courier's spans have no events.
    package func addEvent(_ event: SpanEvent) {}
    /// Not kept: Courier's spans have no links.
    package func addLink(_ link: SpanLink) {}

    /// Counts an error.
    package func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        state.withLock { $0.errors += 1 }
    }

    /// Ends the span once and hands what it holds to the tracer.
    package func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let now = instant().nanosecondsSinceEpoch
        let ended: State? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            state.end = now
            return state
        }
        if let ended { onEnd(ended) }
    }
}
