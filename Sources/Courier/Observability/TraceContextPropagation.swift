/// Which requests carry the trace context (W3C `traceparent`, or whatever the bootstrapped
/// instrument injects) of their span. A value with static members, so later releases can add rules.
public struct TraceContextPropagation: Sendable, Hashable {
    enum Rule: Hashable { case none, apiOrigin, anyOrigin }
    let rule: Rule

    /// No request carries it.
    public static let none = TraceContextPropagation(rule: .none)
    /// Requests to the base URL's origin carry it; requests to other origins, and redirects that
    /// leave the origin, do not (the default: a trace id tells a third party which calls belong
    /// together).
    public static let apiOrigin = TraceContextPropagation(rule: .apiOrigin)
    /// Every request carries it.
    public static let anyOrigin = TraceContextPropagation(rule: .anyOrigin)
}
