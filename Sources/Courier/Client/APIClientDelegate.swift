/// Hooks into every request of an ``APIClient`` (seed 003's `MJApiClientDelegate`). Every method has
/// a default implementation that does nothing, so implement only what you need.
public protocol APIClientDelegate: Sendable {
    /// Adapts a request before it is sent, for example to sign it. Called once per request, not for
    /// the hops of a redirect. Throwing fails the request with your error as the cause.
    func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest

    /// Observes every response that ends a request, successful or not, before it is validated and
    /// decoded.
    func client(_ client: APIClient, didReceive response: TransportResponse, for request: TransportRequest) async
}

extension APIClientDelegate {
    /// Returns the request unchanged.
    public func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest { request }

    /// Does nothing.
    public func client(_ client: APIClient, didReceive response: TransportResponse, for request: TransportRequest) async {}
}
