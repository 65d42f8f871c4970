import Foundation
import Tracing

extension APIClient {
    /// Starts the record (and the span, when tracing) of a request.
    func beginRecord(_ settings: RequestSettings, id: RequestID, streamsBody: Bool = false) -> RequestRecord {
        var span: (any Span)?
        if let tracer = observability.tracer {
            let name = settings.name.map { "\(settings.method.rawValue) \($0)" } ?? settings.method.rawValue
            span = tracer.startSpan(name, ofKind: .client)
        }
        var record = RequestRecord(
            start: .now, method: settings.method, name: settings.name, span: span, id: id, streamsBody: streamsBody)
        if observability.metrics != nil { record.metricsGroup = CourierMetrics.Group(method: settings.method, name: settings.name) }
        return record
    }

    /// Counts one network attempt: its status class, bytes and time to first byte.
    func recordAttempt(
        _ record: inout RequestRecord, wire: TransportRequest, status: Int?, received bodyBytes: Int,
        headersReceivedAt: ContinuousClock.Instant?, joined: Bool, started: ContinuousClock.Instant
    ) {
        let sent = joined ? 0 : wire.bodyLength
        let received = Int64(bodyBytes)
        record.metrics.bytesSent += sent
        record.metrics.bytesReceived += received
        if joined { record.metrics.joinedSharedExchange = true }
        if let status {
            record.statusCode = status
            if let head = headersReceivedAt, head >= started { record.metrics.timeToFirstByte = head - started }
        }
        guard let metrics = observability.metrics else { return }
        // A joined request sent nothing: it counts as a join, not as a request.
        metrics.countAttempt(
            group(record), counted: !joined, status: status ?? 0, sent: sent, received: received,
            timeToFirstByte: status == nil ? nil : record.metrics.timeToFirstByte)
        if joined { metrics.count(series(.joins, record)) }
    }

    /// Counts the bytes (and Server-Sent Events) of a body read as it arrived, once the reader is
    /// done with it: a stream's or a download's bytes are not in its attempt's count, which ends
    /// at the head.
    func recordBody(_ record: inout RequestRecord, bytes: Int64, outcome: RequestRecord.BodyOutcome) {
        record.metrics.bytesReceived += bytes
        record.body = outcome
        guard let metrics = observability.metrics else { return }
        if bytes > 0 { metrics.count(series(.bytesReceived, record), by: bytes) }
        if let events = outcome.events, events > 0 { metrics.count(series(.streamEvents, record), by: events) }
    }

    /// Counts a cache lookup: `hit`, `miss`, `revalidated` or `offline`.
    func recordCache(_ result: String, _ record: RequestRecord) {
        observability.metrics?.count(series(.cache, record, detail: result))
    }

    /// Ends a successful request's record: the final metrics, the duration timer, the span.
    func finish(_ record: inout RequestRecord, source: ResponseSource, statusCode: Int) -> RequestMetrics {
        record.metrics.source = source
        record.metrics.duration = .now - record.start
        observability.metrics?.timeRequest(group(record), status: statusCode, record.metrics.duration)
        if let span = record.span {
            if span.isRecording {
                let record = record
                span.updateAttributes { attributes in
                    Self.write(record, status: statusCode, to: &attributes)
                    attributes.set("courier.response.source", value: .string(source.name))
                }
            }
            span.end()
        }
        return record.metrics
    }

    /// Ends a failed request's record and gives the error its final metrics.
    func finish(_ record: inout RequestRecord, failure: CourierError) -> CourierError {
        var failure = failure
        record.metrics.source = nil
        record.metrics.duration = .now - record.start
        failure.metrics = record.metrics
        if let metrics = observability.metrics {
            metrics.timeRequest(group(record), status: failure.statusCode ?? 0, record.metrics.duration)
            metrics.count(series(.failures, record, detail: failure.classification.metricName))
        }
        if let span = record.span {
            if span.isRecording {
                let record = record
                span.updateAttributes { attributes in
                    Self.write(record, status: record.statusCode, to: &attributes)
                    attributes.set("error.type", value: .string(failure.statusCode.map(String.init) ?? failure.classification.metricName))
                }
                span.recordError(failure)
                span.setStatus(SpanStatus(code: .error, message: failure.message))
            }
            span.end()
        }
        return failure
    }

    /// The span attributes every request has, written once when its span ends (one call into
    /// the tracer instead of one per step): method, id, the last attempt's URL (without user info
    /// or query) and server, the status, a join, the resend count. Room for all of them is made
    /// first, and each is set as a `SpanAttribute`: growing the table one attribute at a time, and
    /// converting through `SpanAttributeConvertible`, cost more than the rest of a request's span.
    private static func write(_ record: RequestRecord, status: Int?, to attributes: inout SpanAttributes) {
        attributes.reserveCapacity(attributes.count + (record.body == nil ? 10 : 13))
        attributes.set("http.request.method", value: .string(record.method.rawValue))
        attributes.set("courier.request_id", value: .string(record.id.description))
        // The last attempt's URL: the request handed to the transport, once one was.
        if record.metrics.attempts > 0, let url = record.sent?.url {
            attributes.set("url.full", value: .string(url.redactedForTelemetry))
            attributes.set("server.address", value: .string(url.host ?? ""))
            attributes.set("server.port", value: .int64(Int64(url.port ?? (url.scheme == "https" ? 443 : 80))))
        }
        if let status { attributes.set("http.response.status_code", value: .int64(Int64(status))) }
        if record.metrics.joinedSharedExchange { attributes.set("courier.dedup.joined", value: .bool(true)) }
        if record.metrics.retries > 0 { attributes.set("http.request.resend_count", value: .int64(Int64(record.metrics.retries))) }
        if let body = record.body {
            attributes.set("http.response.body.size", value: .int64(record.metrics.bytesReceived))
            if let events = body.events { attributes.set("courier.stream.events", value: .int64(events)) }
            if body.stoppedByReader { attributes.set("courier.stream.stopped_by_reader", value: .bool(true)) }
        }
    }

    /// Counts a retry.
    func recordRetry(_ record: RequestRecord) {
        observability.metrics?.count(series(.retries, record))
    }

    /// Adds the span's trace context to `request`'s headers when the propagation rule allows its
    /// origin; returns the names it added, for redirects that leave the origin to remove.
    func injectTraceContext(into request: inout TransportRequest, record: RequestRecord) -> [String] {
        guard let span = record.span, let tracer = observability.tracer else { return [] }
        switch observability.propagation.rule {
        case .none: return []
        case .apiOrigin: guard observability.isAPIOrigin(request.url) else { return [] }
        case .anyOrigin: break
        }
        // The headers move into the carrier and back, so they are written in place, not copied.
        var carrier = HTTPHeadersInjector.Carrier(headers: request.headers)
        request.headers = HTTPHeaders()
        tracer.inject(span.context, into: &carrier, using: HTTPHeadersInjector())
        request.headers = carrier.headers
        return carrier.names
    }

    /// The group of this request's own series (made when its record began, when metrics were on).
    private func group(_ record: RequestRecord) -> CourierMetrics.Group {
        record.metricsGroup ?? CourierMetrics.Group(method: record.method, name: record.name)
    }

    /// The series of `metric` for this request; `status` 0 for a failure without a response.
    func series(_ metric: CourierMetrics.Metric, _ record: RequestRecord, status: Int? = nil, detail: String? = nil) -> CourierMetrics.Series {
        CourierMetrics.Series(metric: metric, method: record.method, statusClass: status.map { $0 / 100 } ?? -1, detail: detail, name: record.name)
    }
}
