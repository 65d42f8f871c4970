import Instrumentation

/// Writes an instrument's context values (such as `traceparent`) into request headers.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier[key] = value
    }
}
