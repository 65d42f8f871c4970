import Foundation

/// Sends one HTTP request and returns its response: the seam between Courier and an HTTP stack.
///
/// Courier ships ``URLSessionTransport``; the `CourierAsyncHTTPClient` product adds one on
/// async-http-client, and `CourierTesting` a stub. A transport:
/// - does not follow redirects: it returns 3xx responses, and ``APIClient`` follows them under its
///   own rules (so headers are stripped the same way on every transport);
/// - reports progress through the ``TransferObserver`` it is given;
/// - stops promptly when the calling task is cancelled, throwing a ``CourierError/Kind/cancelled`` error;
/// - throws ``CourierError`` for failures (``CourierError/Kind/cannotConnect``, ``CourierError/Kind/timedOut``, …).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole response.
    func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse
}
