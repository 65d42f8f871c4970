import Foundation

/// When and how often failed work is tried again: a number of attempts, exponential backoff with
/// jitter, a total time budget, and which failures are worth another try. It rules a request's
/// retries, a resumable download's resumes (``APIClient/download(_:to:resuming:sha256:)``) and an
/// event stream's reconnects (``APIClient/events(_:reconnection:)``).
///
/// ```swift
/// var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.retryPolicy = .standard                       // 3 attempts, 0.5 s base, 30 s cap
/// let upload = Request<Data>(.post, "events", body: ["kind": "opened"])
///     .retry(RetryPolicy(maximumAttempts: 5, retriesAnyMethod: true))  // POST opts in
/// ```
///
/// By default only idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE, TRACE) are retried, after
/// a connection failure, a lost connection, a time-out, or a 408, 429, 502, 503 or 504. A
/// `Retry-After` header (seconds or an HTTP date) replaces the computed delay; when it asks for
/// more than the budget has left, the request fails at once with that response. The client's
/// default is ``none``: nothing is retried unless you say so.
public struct RetryPolicy: Sendable {
    /// The most times a request is sent, the first included (1 means no retry).
    public var maximumAttempts: Int
    /// The delay bound for the first retry; it doubles for each further retry, up to ``maximumDelay``.
    /// The delay is drawn uniformly between half of that bound and all of it, so clients that failed
    /// together do not come back together, and none comes back sooner than half the bound.
    public var baseDelay: Duration
    /// The largest bound a computed delay is drawn from.
    public var maximumDelay: Duration
    /// The most time, from the start of the first attempt, within which a retry may begin; a retry
    /// whose wait would end later is not made.
    public var budget: Duration
    /// Status codes that are retried.
    public var retryableStatusCodes: Set<Int>
    /// Failures, other than a status, that are retried (by default: cannot connect, connection
    /// lost, timed out; an event stream's reconnects add ``CourierError/Kind/notConnectedToInternet``).
    public var retryableFailures: Set<CourierError.Kind>
    /// Whether POST, PATCH and other non-idempotent methods are retried too. Opt in only when the
    /// server can take the same request twice.
    public var retriesAnyMethod: Bool
    /// Waits between attempts; Courier's own tests replace it to see the delays without waiting.
    var sleeper: any RetrySleeper = TaskSleeper()

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
        budget: Duration = .seconds(60), retryableStatusCodes: Set<Int> = [408, 429, 502, 503, 504],
        retryableFailures: Set<CourierError.Kind> = [.cannotConnect, .connectionLost, .timedOut],
        retriesAnyMethod: Bool = false
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = max(.zero, baseDelay)
        self.maximumDelay = max(.zero, maximumDelay)
        self.budget = max(.zero, budget)
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableFailures = retryableFailures
        self.retriesAnyMethod = retriesAnyMethod
    }

    /// No retries: every request is sent once.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// Three attempts, 0.5 s base delay, 30 s cap, 60 s budget, the default failures.
    public static let standard = RetryPolicy()

    /// An event stream's default: 10 reconnects in a row without an event (11 attempts), 3 s
    /// base delay as browsers wait, 60 s cap, no time budget, any method, after the network
    /// failures the HTML standard reconnects after (offline included).
    public static let reconnecting = RetryPolicy(
        maximumAttempts: 11, baseDelay: .seconds(3), maximumDelay: .seconds(60), budget: .seconds(Int64(Int32.max)),
        retryableStatusCodes: [], retryableFailures: [.cannotConnect, .connectionLost, .timedOut, .notConnectedToInternet],
        retriesAnyMethod: true)

    /// This policy with `retry`, the milliseconds an event stream asked for, as its base delay.
    func asking(_ retry: Int?) -> RetryPolicy {
        guard let retry else { return self }
        var policy = self
        policy.baseDelay = .milliseconds(Swift.min(Swift.max(retry, 0), Int(Int32.max)))
        return policy
    }

    /// Whether a request with `method` may be retried at all under this policy.
    package func allows(_ method: HTTPMethod) -> Bool {
        maximumAttempts > 1 && (retriesAnyMethod || method.isIdempotent)
    }

    /// The upper bound of the delay before retry number `retry` (1 for the first retry).
    package func delayBound(beforeRetry retry: Int) -> Duration {
        let exponent = min(max(retry - 1, 0), 62)
        let base = baseDelay.seconds
        let bound = base * pow(2, Double(exponent))
        // Compared as seconds before any Duration is made: a large base delay doubled many times
        // is past what a Duration holds, and making one of it would trap.
        guard bound.isFinite, bound < maximumDelay.seconds else { return maximumDelay }
        return .seconds(bound)
    }

    /// The delay before retry number `retry`: uniform between half of
    /// ``delayBound(beforeRetry:)`` and all of it.
    package func jitteredDelay(beforeRetry retry: Int) -> Duration {
        let bound = delayBound(beforeRetry: retry).seconds
        guard bound > 0 else { return .zero }
        return .seconds(Double.random(in: (bound / 2)...bound))
    }

    /// Whether a response with `statusCode` is worth another attempt.
    package func retries(statusCode: Int) -> Bool { retryableStatusCodes.contains(statusCode) }

    /// Whether a failure of `kind` is worth another attempt.
    package func retries(_ kind: CourierError.Kind) -> Bool { retryableFailures.contains(kind) }
}
