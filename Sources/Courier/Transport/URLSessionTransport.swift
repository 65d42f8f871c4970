import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on Foundation's `URLSession`.
///
/// One `URLSession` serves every request of a transport; ``shared`` is the process-wide instance
/// that ``APIClient`` uses by default. Foundation's `URLCache` is switched off: Courier keeps its
/// own cache. The session's delegate refuses redirects, so ``APIClient`` follows them with its own
/// header rules, and reports upload and download progress.
public final class URLSessionTransport: HTTPTransport {
    /// The transport ``APIClient`` uses when none is given.
    public static let shared = URLSessionTransport()

    /// The session requests run on. It is invalidated when the transport is freed.
    public let session: URLSession
    let delegate: URLSessionTransportDelegate

    /// Creates a transport with its own session built from `configuration` (with caching removed).
    public init(configuration: URLSessionConfiguration = .default) {
        let configuration = configuration.copy() as! URLSessionConfiguration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.name = "Courier.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        delegate = URLSessionTransportDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` on the session; returns 3xx responses without following them.
    ///
    /// Without progress observers the request runs through `URLSession`'s async API, which hands
    /// back the response without a hop through the delegate queue; with one, a task driven by the
    /// session's delegate reports each piece of the body as it is sent or arrives. (A per-task
    /// delegate is not used: swift-corelibs-foundation may register the task before the delegate
    /// is attached, and then reports nothing.) A download goes through `download(for:)` when it has
    /// neither a body to send nor progress to report.
    ///
    /// ``TransportRequest/timeout`` becomes the `URLRequest`'s timeout: an idle timeout, the time
    /// the request may go without sending or receiving anything. swift-corelibs-foundation counts it
    /// in whole seconds, so on Linux a fractional timeout is rounded up to the next second.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        if Task.isCancelled { throw CourierError.cancelled(request.url) }
        var urlRequest = URLRequest(url: request.url)
        // Set through the property: swift-corelibs-foundation ignores the initializer's timeout.
        urlRequest.timeoutInterval = Self.effectiveTimeout(request.timeout)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let observed = observer.download != nil || (observer.upload != nil && request.bodyLength > 0)
        if let destination = request.downloadDestination {
            guard observed || request.bodyLength > 0 else {
                return try await downloadThroughAsyncAPI(urlRequest, request: request, to: destination, observer: observer)
            }
            return try await sendThroughDelegate(urlRequest, request: request, observer: observer)
        }
        if !observed, request.maximumResponseSize == nil {
            return try await sendThroughAsyncAPI(urlRequest, request: request)
        }
        return try await sendThroughDelegate(urlRequest, request: request, observer: observer)
    }

    /// The timeout URLSession actually applies: whole seconds on swift-corelibs-foundation.
    static func effectiveTimeout(_ timeout: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
        return max(1, timeout.rounded(.up))
        #else
        return timeout
        #endif
    }

    /// The response headers as ``HTTPHeaders``.
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(name: "\(name)", value: "\(value)")
        }
        return headers
    }
}
