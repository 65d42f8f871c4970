import CoreMetrics

/// Courier's swift-metrics instruments for one client. Handlers are made once per label and
/// dimensions and kept, so a request costs a few dictionary lookups, not a handler per metric.
///
/// Dimensions are bounded by construction: method, status class (`2xx`…), classification,
/// cache result, and the request's ``Request/name`` when it has one; never a URL.
final class CourierMetrics: Sendable {
    /// A label and its dimensions, the identity of one handler.
    private struct Key: Hashable {
        let label: String
        let dimensions: [String]
    }

    private let factory: any MetricsFactory
    private let counters = Locked([Key: any CounterHandler]())
    private let timers = Locked([Key: any TimerHandler]())

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Metric labels, as a backend sees them.
    enum Label {
        static let requests = "courier_requests_total"
        static let failures = "courier_request_failures_total"
        static let duration = "courier_request_duration"
        static let timeToFirstByte = "courier_time_to_first_byte"
        static let bytesSent = "courier_bytes_sent_total"
        static let bytesReceived = "courier_bytes_received_total"
        static let cache = "courier_cache_lookups_total"
        static let joins = "courier_dedup_joins_total"
        static let retries = "courier_retries_total"
    }

    /// Adds `amount` to the counter `label` with `dimensions` (name, value pairs flattened).
    func count(_ label: String, _ dimensions: [String], by amount: Int64 = 1) {
        let key = Key(label: label, dimensions: dimensions)
        let handler = counters.withLock { counters in
            if let handler = counters[key] { return handler }
            let handler = factory.makeCounter(label: label, dimensions: Self.pairs(dimensions))
            counters[key] = handler
            return handler
        }
        handler.increment(by: amount)
    }

    /// Records `duration` in the timer `label` with `dimensions`.
    func time(_ label: String, _ dimensions: [String], _ duration: Duration) {
        let key = Key(label: label, dimensions: dimensions)
        let handler = timers.withLock { timers in
            if let handler = timers[key] { return handler }
            let handler = factory.makeTimer(label: label, dimensions: Self.pairs(dimensions))
            timers[key] = handler
            return handler
        }
        let (seconds, attoseconds) = duration.components
        handler.recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }

    private static func pairs(_ flat: [String]) -> [(String, String)] {
        stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0], flat[$0 + 1]) }
    }
}
