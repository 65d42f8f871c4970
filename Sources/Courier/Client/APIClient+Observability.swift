import Foundation
import Tracing

extension APIClient {
    /// Starts the record (and the span, when tracing) of a request.
    func beginRecord(_ parts: RequestParts, id: RequestID) -> RequestRecord {
        var span: (any Span)?
        if let tracer = observability.tracer {
            let name = parts.name.map { "\(parts.method.rawValue) \($0)" } ?? parts.method.rawValue
            let started = tracer.startSpan(name, ofKind: .client)
            started.updateAttributes { attributes in
                attributes["http.request.method"] = parts.method.rawValue
                attributes["courier.request_id"] = id.description
            }
            span = started
        }
        return RequestRecord(start: .now, method: parts.method, name: parts.name, span: span)
    }

    /// Counts one network attempt: its status class, bytes and time to first byte.
    func recordAttempt(
        _ record: inout RequestRecord, wire: TransportRequest, response: TransportResponse?, joined: Bool,
        started: ContinuousClock.Instant
    ) {
        let sent = joined ? 0 : wire.bodyLength
        let received = Int64(response?.body.count ?? 0)
        record.metrics.bytesSent += sent
        record.metrics.bytesReceived += received
        if joined { record.metrics.joinedSharedExchange = true }
        if let response {
            record.statusCode = response.statusCode
            if let head = response.headersReceivedAt, head >= started { record.metrics.timeToFirstByte = head - started }
        }
        if let span = record.span {
            span.updateAttributes { attributes in
                attributes["url.full"] = wire.url.redactedForTelemetry
                attributes["server.address"] = wire.url.host ?? ""
                attributes["server.port"] = wire.url.port ?? (wire.url.scheme == "https" ? 443 : 80)
                if let status = response?.statusCode { attributes["http.response.status_code"] = status }
                if joined { attributes["courier.dedup.joined"] = true }
            }
        }
        guard let metrics = observability.metrics else { return }
        // A joined request sent nothing: it counts as a join, not as a request.
        if !joined { metrics.count(CourierMetrics.Label.requests, dimensions(record, status: response?.statusCode)) }
        if sent > 0 { metrics.count(CourierMetrics.Label.bytesSent, dimensions(record), by: sent) }
        if received > 0 { metrics.count(CourierMetrics.Label.bytesReceived, dimensions(record), by: received) }
        if joined { metrics.count(CourierMetrics.Label.joins, dimensions(record)) }
        if let ttfb = record.metrics.timeToFirstByte, response != nil {
            metrics.time(CourierMetrics.Label.timeToFirstByte, dimensions(record), ttfb)
        }
    }

    /// Counts a cache lookup: `hit`, `miss`, `revalidated` or `offline`.
    func recordCache(_ result: String, _ record: RequestRecord) {
        observability.metrics?.count(CourierMetrics.Label.cache, ["result", result] + dimensions(record))
    }

    /// Ends a successful request's record: the final metrics, the duration timer, the span.
    func finish(_ record: inout RequestRecord, source: ResponseSource, statusCode: Int) -> RequestMetrics {
        record.metrics.source = source
        record.metrics.duration = .now - record.start
        observability.metrics?.time(CourierMetrics.Label.duration, dimensions(record, status: statusCode), record.metrics.duration)
        if let span = record.span {
            span.updateAttributes { attributes in
                attributes["http.response.status_code"] = statusCode
                attributes["courier.response.source"] = "\(source)"
                if record.metrics.retries > 0 { attributes["http.request.resend_count"] = record.metrics.retries }
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
            metrics.time(CourierMetrics.Label.duration, dimensions(record, status: failure.statusCode), record.metrics.duration)
            metrics.count(CourierMetrics.Label.failures, ["classification", failure.classification.metricName] + dimensions(record))
        }
        if let span = record.span {
            span.updateAttributes { attributes in
                attributes["error.type"] = failure.statusCode.map(String.init) ?? failure.classification.metricName
                if record.metrics.retries > 0 { attributes["http.request.resend_count"] = record.metrics.retries }
            }
            span.recordError(failure)
            span.setStatus(SpanStatus(code: .error, message: failure.message))
            span.end()
        }
        return failure
    }

    /// Counts a retry (metrics and span).
    func recordRetry(_ record: RequestRecord) {
        observability.metrics?.count(CourierMetrics.Label.retries, dimensions(record))
    }

    /// Adds the span's trace context to `request`'s headers when the propagation rule allows its
    /// origin; returns the names it added, for redirects that leave the origin to remove.
    func injectTraceContext(into request: inout TransportRequest, record: RequestRecord) -> [String] {
        guard let span = record.span, let tracer = observability.tracer else { return [] }
        switch observability.propagation {
        case .none: return []
        case .apiOrigin: guard request.url.origin == observability.apiOrigin else { return [] }
        case .anyOrigin: break
        }
        var injected = HTTPHeaders()
        tracer.inject(span.context, into: &injected, using: HTTPHeadersInjector())
        for field in injected { request.headers[field.name] = field.value }
        return injected.map(\.name)
    }

    /// `method`, the status class and the request name, as flat name/value pairs.
    private func dimensions(_ record: RequestRecord, status: Int?) -> [String] {
        let statusClass = status.map { "\($0 / 100)xx" } ?? "failed"
        var result = ["method", record.method.rawValue, "status_class", statusClass]
        if let name = record.name { result += ["request", name] }
        return result
    }

    private func dimensions(_ record: RequestRecord) -> [String] {
        var result = ["method", record.method.rawValue]
        if let name = record.name { result += ["request", name] }
        return result
    }
}
