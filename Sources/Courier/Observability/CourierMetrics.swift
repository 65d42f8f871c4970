import CoreMetrics

/// Courier's swift-metrics instruments for one client. Handlers are made once per metric and
/// dimensions and kept under a small key (no arrays or strings built per request), so a request
/// costs a few dictionary lookups.
///
/// Dimensions are bounded by construction: method, status class (`2xx`…), classification,
/// cache result, and the request's ``RequestSettings/name`` when it has one; never a URL.
final class CourierMetrics: Sendable {
    /// Courier's metrics, and the label a backend sees for each.
    enum Metric: UInt8 {
        case requests, failures, duration, timeToFirstByte, bytesSent, bytesReceived, cache, joins, retries, streamEvents

        var label: String {
            switch self {
            case .requests: "courier_requests_total"
            case .failures: "courier_request_failures_total"
            case .duration: "courier_request_duration"
            case .timeToFirstByte: "courier_time_to_first_byte"
            case .bytesSent: "courier_bytes_sent_total"
            case .bytesReceived: "courier_bytes_received_total"
            case .cache: "courier_cache_lookups_total"
            case .joins: "courier_dedup_joins_total"
            case .retries: "courier_retries_total"
            case .streamEvents: "courier_stream_events_total"
            }
        }

        /// The name of the metric's own dimension, if it has one.
        var detailName: String? {
            switch self {
            case .failures: "classification"
            case .cache: "result"
            default: nil
            }
        }
    }

    /// One series: the metric and its dimension values.
    struct Series: Hashable {
        let metric: Metric
        let method: HTTPMethod
        /// The status class (2 for `2xx`), 0 for a failure without a response, -1 when the metric has no status.
        let statusClass: Int
        /// The classification or cache result, for the metrics that have one.
        let detail: String?
        let name: String?

        var dimensions: [(String, String)] {
            var result: [(String, String)] = []
            if let detailName = metric.detailName, let detail { result.append((detailName, detail)) }
            result.append(("method", method.rawValue))
            if statusClass >= 0 { result.append(("status_class", statusClass == 0 ? "failed" : "\(statusClass)xx")) }
            if let name { result.append(("request", name)) }
            return result
        }
    }

    private let factory: any MetricsFactory
    private let counters = Locked([Series: any CounterHandler]())
    private let timers = Locked([Series: any TimerHandler]())

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Adds `amount` to the counter of `series`.
    func count(_ series: Series, by amount: Int64 = 1) {
        let handler = counters.withLock { counters in
            if let handler = counters[series] { return handler }
            let handler = factory.makeCounter(label: series.metric.label, dimensions: series.dimensions)
            counters[series] = handler
            return handler
        }
        handler.increment(by: amount)
    }

    /// Records `duration` in the timer of `series`.
    func time(_ series: Series, _ duration: Duration) {
        let handler = timers.withLock { timers in
            if let handler = timers[series] { return handler }
            let handler = factory.makeTimer(label: series.metric.label, dimensions: series.dimensions)
            timers[series] = handler
            return handler
        }
        handler.recordNanoseconds(duration.nanoseconds)
    }
}
