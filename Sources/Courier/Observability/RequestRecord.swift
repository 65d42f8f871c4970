import Tracing

/// What is known about one request while it runs: its metrics so far and its span.
struct RequestRecord: Sendable {
    var metrics = RequestMetrics()
    let start: ContinuousClock.Instant
    let method: HTTPMethod
    /// The request's ``Request/name``, a metrics dimension and part of the span name.
    let name: String?
    let span: (any Span)?
    /// The status of the last response, when one arrived.
    var statusCode: Int?
}
