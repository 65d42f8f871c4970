import Courier
import Foundation

/// How ``APIClientTransport`` sends one generated operation: Courier's per-request settings, each
/// `nil` to take the transport's default (``APIClientTransport/defaults``), and then the client's.
///
/// ```swift
/// var images = OperationSettings()
/// images.cacheOption = .both
/// images.retryPolicy = .standard
/// let transport = APIClientTransport(client: client, operations: ["listImages": images])
/// ```
public struct OperationSettings: Sendable {
    /// How the response cache is used (``Courier/CacheOption``); the client's ``Courier/ClientConfiguration/cacheOption`` when `nil`.
    public var cacheOption: CacheOption?
    /// When a failed request is sent again; the client's ``Courier/ClientConfiguration/retryPolicy`` when `nil`.
    public var retryPolicy: RetryPolicy?
    /// Seconds allowed for the request; the client's ``Courier/ClientConfiguration/timeout`` when `nil`.
    public var timeout: TimeInterval?
    /// Whether a failure is kept from the client's ``Courier/ErrorPresenter`` (no alert); `false` when `nil`.
    public var suppressErrorAlert: Bool?
    /// Whether the cached answer is used when the network fails; the client's
    /// ``Courier/ClientConfiguration/offlineMode`` when `nil`.
    public var offlineMode: Bool?
    /// Whether identical requests in flight share one exchange; the client's choice when `nil`.
    public var deduplication: Bool?
    /// The largest response body accepted, in bytes; the client's when `nil`.
    public var maximumResponseSize: Int64?
    /// Whether an answer with an error status (4xx, 5xx) reaches the generated code as the
    /// operation's documented output (`.notFound(…)`, `.undocumented(…)`) instead of being thrown
    /// as a ``Courier/CourierError``; `false` (thrown) when `nil`. Either way the client's
    /// delegate, error hooks and presenter see the failure first.
    public var returnsErrorResponses: Bool?
    /// Whether the response body is streamed to a temporary file (``Courier/APIClient/download(_:to:)``:
    /// no size limit, nothing held in memory) and handed to the generated code as a body read from
    /// there; `false` (the body in memory) when `nil`. For large downloads.
    public var downloadsToFile: Bool?

    /// Settings that all take the defaults.
    public init(
        cacheOption: CacheOption? = nil, retryPolicy: RetryPolicy? = nil, timeout: TimeInterval? = nil,
        suppressErrorAlert: Bool? = nil, offlineMode: Bool? = nil, deduplication: Bool? = nil,
        maximumResponseSize: Int64? = nil, returnsErrorResponses: Bool? = nil, downloadsToFile: Bool? = nil
    ) {
        self.cacheOption = cacheOption
        self.retryPolicy = retryPolicy
        self.timeout = timeout
        self.suppressErrorAlert = suppressErrorAlert
        self.offlineMode = offlineMode
        self.deduplication = deduplication
        self.maximumResponseSize = maximumResponseSize
        self.returnsErrorResponses = returnsErrorResponses
        self.downloadsToFile = downloadsToFile
    }

    /// These settings, each one that is `nil` taken from `defaults`.
    func over(_ defaults: OperationSettings) -> OperationSettings {
        OperationSettings(
            cacheOption: cacheOption ?? defaults.cacheOption, retryPolicy: retryPolicy ?? defaults.retryPolicy,
            timeout: timeout ?? defaults.timeout, suppressErrorAlert: suppressErrorAlert ?? defaults.suppressErrorAlert,
            offlineMode: offlineMode ?? defaults.offlineMode, deduplication: deduplication ?? defaults.deduplication,
            maximumResponseSize: maximumResponseSize ?? defaults.maximumResponseSize,
            returnsErrorResponses: returnsErrorResponses ?? defaults.returnsErrorResponses,
            downloadsToFile: downloadsToFile ?? defaults.downloadsToFile)
    }

    /// Sets these settings on `request`.
    func apply<Value>(to request: inout Request<Value>) {
        if let cacheOption { request.cacheOption = cacheOption }
        if let retryPolicy { request.retryPolicy = retryPolicy }
        if let timeout { request.timeout = timeout }
        if let suppressErrorAlert { request.suppressErrorAlert = suppressErrorAlert }
        if let offlineMode { request.offlineMode = offlineMode }
        if let deduplication { request.deduplication = deduplication }
        if let maximumResponseSize { request.maximumResponseSize = maximumResponseSize }
    }
}
