import Foundation
import Tracing

/// One send of a request while it runs: its id, metrics so far and span, the last request it put on
/// the wire (for the failure report), and the per-send state the request's settings do not hold (a
/// body read as it arrives, the stored answer it revalidates).
struct RequestRecord: Sendable {
    var metrics = RequestMetrics()
    let start: ContinuousClock.Instant
    let method: HTTPMethod
    /// The request's ``RequestSettings/name``, a metrics dimension and part of the span name.
    let name: String?
    let span: (any Span)?
    /// The status of the last response, when one arrived.
    var statusCode: Int?
    /// The last request handed to the transport (after the delegate adapted it), when one was built.
    var sent: TransportRequest?
    /// The request's id.
    let id: RequestID
    /// The group of the request's own metrics series, when metrics are on.
    var metricsGroup: CourierMetrics.Group?
    /// Whether a 2xx body is handed on as it arrives (``APIClient/stream(_:)``,
    /// ``APIClient/download(_:to:)``) instead of gathered in memory.
    var streamsBody = false
    /// The stored response this send revalidates (its conditions were added): a `304` answers with it.
    var revalidating: CachedResponse?
    /// The request's URL before its query, when the cache plan made it (the wire request reuses it).
    var urlBase: URLBuilder.Base?
    /// For a body read as it arrived (a stream, a download): how it ended, for the span.
    var body: BodyOutcome?
    /// For a WebSocket handshake: the transport and options that open it, and the connection.
    var upgrade: WebSocketUpgrade?

    /// How a body read as it arrived ended, and the Server-Sent Events read from it.
    struct BodyOutcome: Sendable {
        /// Whether the reader stopped before the end (not a failure: how a reader leaves an
        /// endless stream).
        var stoppedByReader: Bool
        /// Events read, for a body read as events; `nil` otherwise.
        var events: Int64?
    }
}
