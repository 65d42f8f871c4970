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
        case webSocketMessages, webSocketCloses

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
            case .webSocketMessages: "courier_websocket_messages_total"
            case .webSocketCloses: "courier_websocket_closes_total"
            }
        }

        /// The name of the metric's own dimension, if it has one.
        var detailName: String? {
            switch self {
            case .failures: "classification"
            case .cache: "result"
            case .webSocketMessages: "direction"
            case .webSocketCloses: "code"
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

    /// The requests a group of per-request series describes: method and name. A request's own
    /// series (requests and durations by status class, bytes, time to first byte) are found with
    /// one lookup of its group, not one per series.
    struct Group: Hashable {
        let method: HTTPMethod
        let name: String?
        /// Hashed once, when the request's record begins: each lookup then hashes one integer.
        private let hash: Int

        init(method: HTTPMethod, name: String?) {
            self.method = method
            self.name = name
            var hasher = Hasher()
            hasher.combine(method)
            hasher.combine(name)
            hash = hasher.finalize()
        }

        static func == (lhs: Group, rhs: Group) -> Bool {
            lhs.hash == rhs.hash && lhs.method == rhs.method && lhs.name == rhs.name
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    /// The handlers of one group, each made when the group's first request needs it. Requests and
    /// durations are by status class: index 0 for a failure without a response, 1…5 for `1xx`…`5xx`.
    private struct GroupHandlers {
        var requests = [(any CounterHandler)?](repeating: nil, count: 6)
        var durations = [(any TimerHandler)?](repeating: nil, count: 6)
        var bytesSent: (any CounterHandler)?
        var bytesReceived: (any CounterHandler)?
        var timeToFirstByte: (any TimerHandler)?
    }

    private let factory: any MetricsFactory
    private let counters = Locked([Series: any CounterHandler]())
    private let timers = Locked([Series: any TimerHandler]())
    private let groups = Locked([Group: GroupHandlers]())

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Adds `amount` to the counter of `series`.
    func count(_ series: Series, by amount: Int64 = 1) {
        counter(series).increment(by: amount)
    }

    /// The counter of `series`, made on first use.
    func counter(_ series: Series) -> any CounterHandler {
        counters.withLock { counters in
            if let handler = counters[series] { return handler }
            let handler = factory.makeCounter(label: series.metric.label, dimensions: series.dimensions)
            counters[series] = handler
            return handler
        }
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

    /// Counts one attempt of a request in `group` with one lookup: a request with `status` (0 for
    /// none) unless `counted` is false, the bytes sent and received when there were any, the time
    /// to first byte when known.
    func countAttempt(_ group: Group, counted: Bool, status: Int, sent: Int64, received: Int64, timeToFirstByte: Duration?) {
        let statusClass = status / 100
        guard (0...5).contains(statusClass) else {
            // A status outside the standard classes goes through the general tables.
            if counted { count(Series(metric: .requests, method: group.method, statusClass: statusClass, detail: nil, name: group.name)) }
            countAttempt(group, counted: false, status: 0, sent: sent, received: received, timeToFirstByte: timeToFirstByte)
            return
        }
        let (requests, bytesSent, bytesReceived, firstByte) = groups.withLock { groups in
            modify(&groups[group, default: GroupHandlers()]) { handlers in
                if counted, handlers.requests[statusClass] == nil {
                    handlers.requests[statusClass] = makeCounter(.requests, group, statusClass: statusClass)
                }
                if sent > 0, handlers.bytesSent == nil { handlers.bytesSent = makeCounter(.bytesSent, group, statusClass: -1) }
                if received > 0, handlers.bytesReceived == nil {
                    handlers.bytesReceived = makeCounter(.bytesReceived, group, statusClass: -1)
                }
                if timeToFirstByte != nil, handlers.timeToFirstByte == nil {
                    handlers.timeToFirstByte = factory.makeTimer(
                        label: Metric.timeToFirstByte.label, dimensions: Self.dimensions(.timeToFirstByte, group, statusClass: -1))
                }
                return (counted ? handlers.requests[statusClass] : nil, sent > 0 ? handlers.bytesSent : nil,
                        received > 0 ? handlers.bytesReceived : nil, timeToFirstByte != nil ? handlers.timeToFirstByte : nil)
            }
        }
        requests?.increment(by: 1)
        bytesSent?.increment(by: sent)
        bytesReceived?.increment(by: received)
        if let firstByte, let timeToFirstByte { firstByte.recordNanoseconds(timeToFirstByte.nanoseconds) }
    }

    /// Records the duration of a request in `group` that ended with `status` (0 for none).
    func timeRequest(_ group: Group, status: Int, _ duration: Duration) {
        let statusClass = status / 100
        guard (0...5).contains(statusClass) else {
            return time(Series(metric: .duration, method: group.method, statusClass: statusClass, detail: nil, name: group.name), duration)
        }
        let timer = groups.withLock { groups in
            modify(&groups[group, default: GroupHandlers()]) { handlers in
                if let timer = handlers.durations[statusClass] { return timer }
                let timer = factory.makeTimer(label: Metric.duration.label, dimensions: Self.dimensions(.duration, group, statusClass: statusClass))
                handlers.durations[statusClass] = timer
                return timer
            }
        }
        timer.recordNanoseconds(duration.nanoseconds)
    }

    private func makeCounter(_ metric: Metric, _ group: Group, statusClass: Int) -> any CounterHandler {
        factory.makeCounter(label: metric.label, dimensions: Self.dimensions(metric, group, statusClass: statusClass))
    }

    private static func dimensions(_ metric: Metric, _ group: Group, statusClass: Int) -> [(String, String)] {
        Series(metric: metric, method: group.method, statusClass: statusClass, detail: nil, name: group.name).dimensions
    }
}
