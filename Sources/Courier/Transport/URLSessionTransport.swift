import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on Foundation's `URLSession`.
///
/// One `URLSession` serves every request of a transport; ``shared`` is the process-wide instance
/// that ``APIClient`` uses by default. Tasks are created without completion handlers and followed
/// through the session's delegate, which is the only way swift-corelibs-foundation on Linux reports
/// upload progress. Foundation's `URLCache` is switched off: Courier keeps its own cache.
public final class URLSessionTransport: HTTPTransport {
    /// The transport ``APIClient`` uses when none is given.
    public static let shared = URLSessionTransport()

    /// The session requests run on.
    public let session: URLSession
    private let delegate: URLSessionTransportDelegate

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
    /// Without progress observers a task with a completion handler is used (the fastest path);
    /// with them, a delegate-driven task reports each event.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        if Task.isCancelled { throw CourierError.cancelled(request.url) }
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let exchange = URLSessionExchange(request: request, observer: observer)
        let body = request.body.flatMap { $0.isEmpty ? nil : $0 }
        let task: URLSessionTask
        if observer.upload == nil, observer.download == nil {
            // No progress wanted: one completion callback instead of a delegate call per event.
            let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
                exchange.complete(data: data, response: response, error: error)
            }
            if let body {
                task = session.uploadTask(with: urlRequest, from: body, completionHandler: completion)
            } else {
                task = session.dataTask(with: urlRequest, completionHandler: completion)
            }
        } else {
            task = body.map { session.uploadTask(with: urlRequest, from: $0) } ?? session.dataTask(with: urlRequest)
            delegate.register(exchange, for: task)
        }
        // swift-corelibs-foundation does not enforce URLRequest.timeoutInterval as a deadline, so the
        // transport keeps its own, the same on every platform.
        let deadline = DispatchWorkItem {
            exchange.finish(.failure(CourierError(
                .timedOut, "\(request.url.hostAndPort) did not respond within \(request.timeout.formattedSeconds) seconds.",
                url: request.url)))
            task.cancel()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + request.timeout, execute: deadline)
        defer {
            deadline.cancel()
            delegate.unregister(task)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                exchange.attach(continuation)
                task.resume()
            }
        } onCancel: {
            exchange.finish(.failure(CourierError.cancelled(request.url)))
            task.cancel()
        }
    }
}
