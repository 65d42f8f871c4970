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
        var body = Data()
        var expected: Int64?
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
        state.withLock { ($0.response != nil, Int64($0.body.count), $0.expected) }
    }

    func didReceiveHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        do {
            let (response, expected) = try transport.head(status: head.status, fields: head.headers, request: request)
            if let maximum = request.maximumResponseSize, let expected, expected > maximum {
                throw CourierError.responseTooLarge(request.url, maximum: maximum, length: expected)
            }
            state.withLock { state in
                state.response = response
                state.expected = expected
                if let expected, expected < 1 << 30 { state.body.reserveCapacity(Int(expected)) }
            }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<TransportResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (received, expected) = state.withLock { state in
            state.body.append(contentsOf: buffer.readableBytesView)
            return (Int64(state.body.count), state.expected)
        }
        if let maximum = request.maximumResponseSize, received > maximum {
            return task.eventLoop.makeFailedFuture(CourierError.responseTooLarge(request.url, maximum: maximum, length: nil))
        }
        if let download = observer.download, received != expected {
            download(TransferProgress(completed: received, total: expected.flatMap { $0 >= received ? $0 : nil }))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<TransportResponse>) throws -> TransportResponse {
        let response = state.withLock { state -> TransportResponse? in
            guard var response = state.response else { return nil }
            response.body = state.body
            state.body = Data()
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
