import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Runs the request as a delegate-driven task, so each piece of the body is reported as it arrives.
    func sendThroughDelegate(_ urlRequest: URLRequest, request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        let exchange = URLSessionExchange(request: request, observer: observer)
        let task = request.body.flatMap { $0.isEmpty ? nil : $0 }.map { session.uploadTask(with: urlRequest, from: $0) }
            ?? session.dataTask(with: urlRequest)
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
