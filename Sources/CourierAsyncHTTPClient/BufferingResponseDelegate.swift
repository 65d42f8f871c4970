import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1

/// Reads a whole response into memory from async-http-client's delegate callbacks, with the same
/// checks as ``AsyncHTTPClientTransport``'s task path: the content coding, the declared length, the
/// request's maximum size, and download progress.
///
/// It needs no Swift task: async-http-client calls it on the request's event loop, and the outcome
/// arrives through the `HTTPClient.Task`'s future. Every callback of one request runs on that one
/// loop, one at a time; the lock only makes that visible to the compiler.
final class BufferingResponseDelegate: HTTPClientResponseDelegate, Sendable {
    typealias Response = TransportResponse

    private struct State {
        var response: TransportResponse?
        var body: ResponseBodyAccumulator?
    }

    private let transport: AsyncHTTPClientTransport
    private let request: TransportRequest
    private let observer: TransferObserver
    private let state = Locked(State())

    init(transport: AsyncHTTPClientTransport, request: TransportRequest, observer: TransferObserver) {
        self.transport = transport
        self.request = request
        self.observer = observer
    }

    /// Whether the head arrived, how much of the body, and how much was declared: a failure after
    /// the head is a broken body, not a failure to connect.
    var progress: (headReceived: Bool, received: Int64, expected: Int64?) {
        state.withLock { ($0.response != nil, $0.body?.received ?? 0, $0.body?.expected) }
    }

    func didReceiveHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        do {
            let (response, expected) = try transport.head(status: head.status, fields: head.headers, request: request)
            let body = try ResponseBodyAccumulator(url: request.url, maximumSize: request.maximumResponseSize, expected: expected)
            state.withLock { state in
                state.response = response
                state.body = body
            }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<TransportResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let outcome = state.withLock { state -> Result<TransferProgress?, CourierError> in
            do throws(CourierError) {
                return .success(try buffer.withUnsafeReadableBytes { bytes throws(CourierError) in try state.body?.append(bytes) })
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let progress):
            if let progress { observer.download?(progress) }
            return task.eventLoop.makeSucceededVoidFuture()
        case .failure(let error):
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<TransportResponse>) throws -> TransportResponse {
        let response = state.withLock { state -> TransportResponse? in
            guard var response = state.response else { return nil }
            response.body = state.body?.takeBody() ?? Data()
            return response
        }
        guard let response else {
            throw CourierError(.invalidResponse, "\(request.url.hostAndPort) ended the exchange without a response.", url: request.url)
        }
        let count = Int64(response.body.count)
        observer.download?(TransferProgress(completed: count, total: count))
        return response
    }
}
