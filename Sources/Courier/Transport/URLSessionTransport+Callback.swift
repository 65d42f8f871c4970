import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport: CallbackTransport {
    /// Starts `request` on the session; `completion` gets what ``send(_:observer:)`` would return
    /// or throw, from the session's delegate queue.
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        startThroughDelegate(Self.urlRequest(for: request), request: request, observer: observer, completion: completion)
    }
}
