/// Hooks into every request of an ``APIClient`` (seed 003's `MJApiClientDelegate`). Every method has
/// a default implementation that does nothing, so implement only what you need.
public protocol APIClientDelegate: Sendable {
    /// Adapts a request before it is sent, for example to sign it. Called once per request, not for
    /// the hops of a redirect. Throwing fails the request with your error as the cause.
    func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest

    /// Observes every response that ends a request, successful or not, before it is validated and
    /// decoded.
    func client(_ client: APIClient, didReceive response: TransportResponse, for request: TransportRequest) async

    /// Turns a response into an error (seed 003's `errorForResponseBody`): an API that answers 200
    /// with `{"error_code": 7}` fails here (read it with ``TransportResponse/bodyValue``, parsed only
    /// when you ask). Return `nil` to let the response through (then non-2xx statuses still fail as
    /// usual). The returned error becomes the ``CourierError/underlyingError`` of a
    /// ``CourierError/Kind/rejected`` error, unless it is a `CourierError` itself.
    func client(_ client: APIClient, errorFor response: TransportResponse, request: TransportRequest) async -> (any Error)?

    /// Observes a retry before its wait begins: `request` failed with `failure` (its response's
    /// status, or a connection failure) on attempt number `attempt`, and is sent again after
    /// `delay`. ``client(_:didReceive:for:)`` has already seen a retried response.
    func client(_ client: APIClient, willRetry request: TransportRequest, after failure: CourierError, attempt: Int, delay: Duration) async

    /// Observes every error a request ends with, after it is classified (seed 003's
    /// `didReceiveErrorInResponse`): log it, or sign the user out on ``ErrorClassification/unauthorized``.
    /// Called once per failed request, after every fallback, so it sees what the caller sees: a
    /// request that offline mode answers from the cache did not fail.
    /// `request` is `nil` when the request failed before it could be built.
    func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async
}

extension APIClientDelegate {
    /// Returns the request unchanged.
    public func client(_ client: APIClient, willSend request: TransportRequest) async throws -> TransportRequest { request }

    /// Does nothing.
    public func client(_ client: APIClient, didReceive response: TransportResponse, for request: TransportRequest) async {}

    /// Returns `nil`: no response is turned into an error.
    public func client(_ client: APIClient, errorFor response: TransportResponse, request: TransportRequest) async -> (any Error)? { nil }

    /// Does nothing.
    public func client(_ client: APIClient, willRetry request: TransportRequest, after failure: CourierError, attempt: Int, delay: Duration) async {}

    /// Does nothing.
    public func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async {}
}
