import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

extension AsyncHTTPClientTransport: NetworkTransport {
    /// Starts the exchange on async-http-client's delegate API, whatever the request: a body in
    /// memory or streamed from files, an answer gathered in memory or handed on as it arrives
    /// (``Courier/TransportRequest/streamsBody``), with backpressure both ways. `completion` is
    /// called once: with the whole response, or at the head of a streamed 2xx body, or with the
    /// failure.
    ///
    /// ``Courier/TransportRequest/timeout`` is an idle timeout, as on ``Courier/URLSessionTransport``:
    /// the exchange fails with ``Courier/CourierError/Kind/timedOut`` when that long passes with
    /// nothing sent or received (waiting for a reader that is behind does not count), noticed
    /// within ``IdleSweep/interval`` by the sweep of the task's event loop.
    ///
    /// An idempotent request without a body whose connection closes before any of its answer
    /// came (a kept-alive connection the server dropped as it was reused) is sent once more, on a
    /// new connection, as libcurl does for URLSession and RFC 9110 §9.2.2 allows.
    ///
    /// This is one try of ``start(_:observer:completion:)`` (``NetworkTransport``), stopped through
    /// `control`.
    package func start(
        _ request: TransportRequest, observer: TransferObserver, control: ExchangeControl, mayResend: Bool,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        for field in request.headers { headers.add(name: field.name, value: field.value) }
        if decodesCompressedBodies, !request.headers.contains("Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        let wire: HTTPClient.Request
        let unwanted = request.bodyLength > 0 ? UnwantedBody() : nil
        do {
            wire = try HTTPClient.Request(
                url: request.url, method: .init(rawValue: request.method.rawValue), headers: headers,
                body: requestBody(request, observer: observer, unwanted: unwanted))
        } catch {
            completion(.failure(Self.courierError(for: error, request: request, proxy: proxy)))
            return
        }
        let delegate = ResponseDelegate(
            transport: self, request: request, observer: observer, resendControl: mayResend ? control : nil, unwantedBody: unwanted,
            completion: completion)
        // The loop where this client's last exchanges left a connection idle (a pinned host's
        // client keeps connections of its own, and its exchanges take async-http-client's choice).
        let pinnedClient = pinned.client(for: request.url)
        let choosesLoop = pinnedClient == nil
        let loop = choosesLoop ? loopChoice.next() : nil
        let task = (pinnedClient ?? client).execute(request: wire, delegate: delegate, eventLoop: loop.map { .delegate(on: $0) } ?? .indifferent, deadline: nil)
        delegate.started(task, sweep: idleSweeps[ObjectIdentifier(task.eventLoop)] ?? fallbackSweep)
        task.futureResult.whenComplete { [loopChoice] result in
            if choosesLoop, case .success = result { loopChoice.ended(on: task.eventLoop) }
            delegate.ended(result)
        }
        control.attach { task.cancel() }
    }

    /// The request body as async-http-client takes it: bytes in memory as they are, or, when the
    /// body is streamed or upload progress is observed, pieces of ``uploadChunkSize`` read one at a
    /// time (off the event loop) as the connection takes them.
    private func requestBody(_ request: TransportRequest, observer: TransferObserver, unwanted: UnwantedBody?) -> HTTPClient.Body? {
        let streamed: StreamedBody
        if let stream = request.bodyStream {
            streamed = stream
        } else if let body = request.body, !body.isEmpty {
            guard observer.upload != nil else { return .bytes(body) }
            streamed = StreamedBody(segments: [.bytes(body)], contentType: "")
        } else {
            return nil
        }
        let chunkSize = uploadChunkSize
        let loops = client.eventLoopGroup
        return .stream(contentLength: streamed.length) { writer in
            UploadPump(body: streamed, chunkSize: chunkSize, writer: writer).run(on: loops.any(), unwanted: unwanted)
        }
    }
}

/// Feeds a body to async-http-client a piece at a time: each piece is read on NIO's thread pool
/// (a file read never blocks an event loop) and the next is read only once the connection has
/// taken the last, so a large upload never sits in memory. (Progress is counted as the pieces are
/// written, by ``ResponseDelegate``.)
private final class UploadPump: Sendable {
    private let reader: Locked<StreamedBody.Iterator>
    private let total: Int64
    private let writer: HTTPClient.Body.StreamWriter

    init(body: StreamedBody, chunkSize: Int, writer: HTTPClient.Body.StreamWriter) {
        reader = Locked(body.chunks(size: chunkSize).makeIterator())
        total = body.length
        self.writer = writer
    }

    /// Writes every piece; the future fails with the first read or write failure, and succeeds
    /// early when the answer says the rest is `unwanted`.
    func run(on loop: any EventLoop, unwanted: UnwantedBody?) -> EventLoopFuture<Void> {
        let done = loop.makePromise(of: Void.self)
        let settled = Locked(false)
        let settle: @Sendable (Result<Void, any Error>) -> Void = { result in
            let first = settled.withLock { settled in
                defer { settled = true }
                return !settled
            }
            guard first else { return }
            done.completeWith(result)
        }
        unwanted?.onEnd { settle(.success(())) }
        done.futureResult.whenComplete { _ in unwanted?.onEnd(nil) }
        write(read(on: loop), queued: 0, on: loop).whenComplete(settle)
        return done.futureResult
    }

    /// The next piece, read on NIO's thread pool.
    private func read(on loop: any EventLoop) -> EventLoopFuture<Data?> {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) { [reader] in
            do {
                return try reader.withLock { try $0.next() }
            } catch {
                throw CourierError.unreadableBody(error)
            }
        }
    }

    /// Writes the piece `pending` brings, then reads the next once the connection has taken it
    /// (`queued`: the bytes handed to the writer before it).
    private func write(_ pending: EventLoopFuture<Data?>, queued: Int64, on loop: any EventLoop) -> EventLoopFuture<Void> {
        pending.flatMap { [self] piece -> EventLoopFuture<Void> in
            guard let piece else { return loop.makeSucceededVoidFuture() }
            let written = writer.write(.byteBuffer(ByteBuffer(data: piece)))
            let queued = queued + Int64(piece.count)
            return written.flatMap { [self] in
                // After the last piece the body is done at once, on the connection's loop: asking
                // the reader for its end first completed the body after the response had come, and
                // async-http-client then kept the connection out of its pool now and then.
                if queued >= total { return written.eventLoop.makeSucceededVoidFuture() }
                return write(read(on: loop), queued: queued, on: loop)
            }
        }
    }
}

/// Ends a request body that async-http-client no longer wants. After an answer of 300 or more,
/// it pauses the body for good, and completes the exchange only once the body ends: without this,
/// such an answer to a large upload (a `401`, a `413`) waited for the idle timeout. The body is
/// ended, short, once the whole answer has come (``ResponseDelegate``); async-http-client then
/// fails the task as `requestStreamCancelled`, and the delegate hands on the answer instead.
final class UnwantedBody: Sendable {
    private let state = Locked<(ending: (@Sendable () -> Void)?, ended: Bool)>((nil, false))

    /// What ends the body; `nil` once the body has ended by itself.
    func onEnd(_ body: (@Sendable () -> Void)?) { state.withLock { $0.ending = body } }

    /// Ends the body, if it is still going out.
    func end() {
        state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.ending = nil }
            if state.ending != nil { state.ended = true }
            return state.ending
        }?()
    }

    /// Whether ``end()`` ended the body while it was going out.
    var ended: Bool { state.withLock { $0.ended } }
}
