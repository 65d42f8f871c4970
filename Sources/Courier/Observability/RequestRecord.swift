import Foundation
import Tracing

/// What is known about one request while it runs: its metrics so far, its span, and the last
/// request it put on the wire (for the failure report).
struct RequestRecord: Sendable {
    var metrics = RequestMetrics()
    let start: ContinuousClock.Instant
    let method: HTTPMethod
    /// The request's ``Request/name``, a metrics dimension and part of the span name.
    let name: String?
    let span: (any Span)?
    /// The status of the last response, when one arrived.
    var statusCode: Int?
    /// The last request handed to the transport (after the delegate adapted it), when one was built.
    var sent: TransportRequest?
    /// The request's id, for the span.
    var requestID: RequestID?
    /// For a body read as it arrived (a stream, a download): how it ended, for the span.
    var body: BodyOutcome?

    /// How a body read as it arrived ended, and the Server-Sent Events read from it.
    struct BodyOutcome: Sendable {
        /// Whether the reader stopped before the end (not a failure: how a reader leaves an
        /// endless stream).
        var stoppedByReader: Bool
        /// Events read, for a body read as events; `nil` otherwise.
        var events: Int64?
    }
}
