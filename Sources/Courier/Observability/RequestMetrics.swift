/// How a request went: attempts, where the answer came from, bytes and times. Carried by every
/// ``Response`` and by a ``CourierError`` that ends a request.
///
/// ```swift
/// let response = try await client.send(Request<[Image]>(.get, "images"))
/// print(response.metrics.attempts, response.metrics.bytesReceived, response.metrics.duration)
/// ```
public struct RequestMetrics: Sendable, Hashable, CustomStringConvertible {
    /// How many times the request went to the network (0 for an answer from the cache; more than
    /// 1 after retries or a credential refresh). A request that joined another's exchange counts 1.
    public var attempts = 0
    /// Of those, how many were retries under the ``RetryPolicy``.
    public var retries = 0
    /// Where the answer came from (`nil` when the request failed).
    public var source: ResponseSource?
    /// Whether the request shared another identical request's network exchange instead of
    /// sending its own (in-flight deduplication).
    public var joinedSharedExchange = false
    /// Request body bytes sent, over all attempts (a joined request sent none).
    public var bytesSent: Int64 = 0
    /// Response body bytes received, over all attempts (as decoded; a joined request counts the
    /// shared body once).
    public var bytesReceived: Int64 = 0
    /// From the call to the decoded value or the final error.
    public var duration: Duration = .zero
    /// From the start of the last attempt to its response headers, when the transport reports it.
    public var timeToFirstByte: Duration?
    /// The time spent waiting between attempts.
    public var backoff: Duration = .zero

    /// Creates metrics.
    public init() {}

    /// A one-line summary.
    public var description: String {
        var text = "\(attempts) attempt(s), \(bytesSent) bytes sent, \(bytesReceived) received in \(duration)"
        if let source { text += " from \(source)" }
        if joinedSharedExchange { text += " (joined a shared exchange)" }
        return text
    }
}
