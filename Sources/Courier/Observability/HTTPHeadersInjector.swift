import Instrumentation

/// Writes an instrument's context values (such as `traceparent`) into a request's headers, and
/// notes the names it wrote (a redirect that leaves the origin removes them).
struct HTTPHeadersInjector: Injector {
    /// The headers written into, and the names written.
    struct Carrier {
        var headers: HTTPHeaders
        var names: [String] = []
    }

    func inject(_ value: String, forKey key: String, into carrier: inout Carrier) {
        carrier.headers[key] = value
        carrier.names.append(key)
    }
}
