import Tracing

/// A tracer that accepts every span, attribute, status and error and keeps none of them, and
/// injects nothing: what Courier's tracing costs a request with the tracer's own cost taken out
/// (`NoOpTracer` would not do: Courier sees it and skips tracing altogether).
package struct AcceptingTracer: Tracer {
    /// Creates the tracer.
    package init() {}

    /// A span that drops what it is given.
    package func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> AcceptedSpan {
        AcceptedSpan()
    }

    /// Nothing to flush.
    package func forceFlush() {}

    /// Reads nothing.
    package func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    /// Writes nothing.
    package func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {}
}

/// A span of ``AcceptingTracer``: every setter accepts its value and drops it.
package struct AcceptedSpan: Span {
    /// An empty context.
    package var context: ServiceContext { .topLevel }
    /// Accepts a name and forgets it.
    package var operationName: String {
        get { "" }
        nonmutating set {}
    }
    /// Accepts attributes and forgets them.
    package var attributes: SpanAttributes {
        get { [:] }
        nonmutating set {}
    }
    /// Always recording, so that Courier sets every attribute it would on a real span.
    package var isRecording: Bool { true }
    package func setStatus(_ status: SpanStatus) {}
    package func addEvent(_ event: SpanEvent) {}
    package func addLink(_ link: SpanLink) {}
    package func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {}
    package func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
}
