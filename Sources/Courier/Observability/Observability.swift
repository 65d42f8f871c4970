import CoreMetrics
import Foundation
import Tracing

/// Where one client's metrics and spans go, decided when the client is created: the configured
/// factory and tracer, else the bootstrapped ones; `nil` parts when nothing was bootstrapped, so
/// an app that never bootstraps a backend pays nothing per request.
struct Observability: Sendable {
    let metrics: CourierMetrics?
    let tracer: (any Tracer)?
    let propagation: TraceContextPropagation
    let apiOrigin: String
    /// The base URL's text up to its path (`https://api.example.com/`): a URL that starts with it
    /// is of the API's origin without taking the URL apart.
    let apiPrefix: String

    init(configuration: ClientConfiguration) {
        if let factory = configuration.metricsFactory {
            metrics = CourierMetrics(factory: factory)
        } else {
            let factory = MetricsSystem.factory
            metrics = factory is NOOPMetricsHandler ? nil : CourierMetrics(factory: factory)
        }
        if let tracer = configuration.tracer {
            self.tracer = tracer
        } else {
            let tracer = InstrumentationSystem.tracer
            self.tracer = tracer is NoOpTracer ? nil : tracer
        }
        propagation = configuration.traceContextPropagation
        apiOrigin = configuration.baseURL.origin
        let base = configuration.baseURL.absoluteString
        let authorityStart = URLBuilder.schemeSeparator(in: Substring(base))?.upperBound ?? base.startIndex
        let pathStart = base[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? base.endIndex
        apiPrefix = base[..<pathStart] + "/"
    }

    /// Whether `url` is of the base URL's origin.
    func isAPIOrigin(_ url: URL) -> Bool {
        url.absoluteString.hasPrefix(apiPrefix) || url.origin == apiOrigin
    }
}
