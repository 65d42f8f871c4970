import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Runs the request as a delegate-driven task, so each piece of the body is reported as it
    /// arrives. A download runs as a data task too, its body written to a file beside the
    /// destination piece by piece: swift-corelibs-foundation reports a download task's progress
    /// only now and then.
    func sendThroughDelegate(_ urlRequest: URLRequest, request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        var bodyFile: URL?
        defer { bodyFile.map { try? FileManager.default.removeItem(at: $0) } }
        let task: URLSessionTask
        if let stream = request.bodyStream {
            task = session.uploadTask(with: urlRequest, fromFile: try Self.spool(stream, into: &bodyFile))
        } else if let body = request.body, !body.isEmpty {
            task = session.uploadTask(with: urlRequest, from: body)
        } else {
            task = session.dataTask(with: urlRequest)
        }
        let exchange = URLSessionExchange(request: request, observer: observer) { [weak task] in task?.cancel() }
        delegate.register(exchange, for: task)
        defer { delegate.unregister(task) }
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
