import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension SmallGet {
    /// The same GET with async-http-client's delegate API (`execute(request:delegate:eventLoop:deadline:)`),
    /// the API ``CourierAsyncHTTPClient`` sends in-memory requests with: the baseline that shows
    /// how much of Courier's cost over ``rawAHC(_:baseURL:path:expectedBytes:)`` is that API's own.
    package static func rawAHCDelegate(_ client: HTTPClient, baseURL: URL, path: String, expectedBytes: Int?) -> @Sendable () async throws -> Void {
        let url = baseURL.absoluteString + "/" + path
        let decoder = decoder()
        let numbers = Ticket()
        return {
            let request = try HTTPClient.Request(url: url + "?n=\(numbers.take())")
            let task = client.execute(request: request, delegate: BodyCollector(), eventLoop: .indifferent, deadline: .now() + .seconds(60))
            let (status, body) = try await task.futureResult.get()
            guard status == .ok else { throw BenchError("raw ahc delegate: \(status)") }
            if let expectedBytes {
                guard body.readableBytes == expectedBytes else { throw BenchError("raw ahc delegate: \(body.readableBytes) bytes") }
            } else {
                let sample = try decoder.decode(Sample.self, from: Data(buffer: body))
                guard sample.id == "123" else { throw BenchError("raw ahc delegate: wrong sample") }
            }
        }
    }

    /// Collects a response's status and body; async-http-client calls it on one event loop, one
    /// callback at a time (the lock, as in Courier's own delegate, makes that visible to the compiler).
    final class BodyCollector: HTTPClientResponseDelegate, Sendable {
        typealias Response = (HTTPResponseStatus, ByteBuffer)

        private let state = Locked((status: HTTPResponseStatus.ok, body: ByteBuffer()))

        func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            state.withLock { $0.status = head.status }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
            state.withLock { state in
                var part = part
                state.body.writeBuffer(&part)
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
            state.withLock { ($0.status, $0.body) }
        }
    }
}
