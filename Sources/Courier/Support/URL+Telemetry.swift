import Foundation

extension URL {
    /// The URL for telemetry: without user info and query (either may carry secrets).
    var redactedForTelemetry: String {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? "\(scheme ?? "http")://\(host ?? "")"
    }
}
