/// Which requests carry the trace context (W3C `traceparent`, or whatever the bootstrapped
/// instrument injects) of their span.
public enum TraceContextPropagation: Sendable, Hashable {
    /// No request carries it.
    case none
    /// Requests to the base URL's origin carry it; requests to other origins, and redirects that
    /// leave the origin, do not (the default: a trace id tells a third party which calls belong
    /// together).
    case apiOrigin
    /// Every request carries it.
    case anyOrigin
}
