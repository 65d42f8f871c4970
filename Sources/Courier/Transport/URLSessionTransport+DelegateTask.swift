import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport: NetworkTransport {
    /// Starts `request` as a task driven by the session's delegate, so each piece of the body is
    /// reported (or handed on, for a streamed body) as it arrives; `completion` gets what
    /// ``send(_:observer:)`` would return or throw, from the session's delegate queue.
    ///
    /// Cancellation answers the caller at once and asks URLSession to stop the task from another
    /// queue: `URLSessionTask.cancel()` may wait for the session's work queue, which must never
    /// wait on the Swift task whose cancellation handler is running (a deadlock seen with
    /// Foundation's own `data(for:)` when a cancellation races the completion).
    ///
    /// An idempotent request without a body that gets a reply libcurl cannot read before any of
    /// its answer arrived (what a kept-alive connection left with bytes of an earlier, badly framed
    /// answer gives the request that reuses it) is sent once more: libcurl closes the connection
    /// after such a reply, so the second try goes on a new one (RFC 9110 §9.2.2).
    ///
    /// This is one try of ``start(_:observer:completion:)`` (``NetworkTransport``), stopped through
    /// `control`.
    package func start(
        _ request: TransportRequest, observer: TransferObserver, control: ExchangeControl, mayResend: Bool,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) {
        let task: URLSessionTask
        let exchange: URLSessionExchange
        do {
            (task, exchange) = try makeTask(Self.urlRequest(for: request), request: request, observer: observer)
        } catch {
            completion(.failure(error))
            return
        }
        exchange.attach { result in
            if mayResend, case .failure(let error) = result, !exchange.headArrived, Self.isUnreadableReply(error) {
                self.start(request, observer: observer, control: control, mayResend: false, completion: completion)
            } else {
                completion(result)
            }
        }
        control.attach {
            exchange.finish(.failure(CourierError.cancelled(request.url)))
            exchange.cancelTask()
        }
        task.resume()
    }

    /// Whether `error` is a reply libcurl could not read as HTTP (an unknown protocol version, a
    /// weird reply, a bad status line): what the leftover bytes of a badly framed answer give the
    /// next request on that connection.
    static func isUnreadableReply(_ error: any Error) -> Bool {
        guard let courier = error as? CourierError, let cause = courier.underlyingError else { return false }
        let nsError = cause as NSError
        guard nsError.domain == NSURLErrorDomain else { return false }
        return nsError.code == NSURLErrorUnsupportedURL || nsError.code == NSURLErrorBadServerResponse
            || isMalformedAnswer(nsError.localizedDescription)
    }

    /// The session task for `request` (upload, streamed or data task) and the exchange its
    /// delegate callbacks go to, registered with the delegate; the task is not resumed yet.
    private func makeTask(_ urlRequest: URLRequest, request: TransportRequest, observer: TransferObserver) throws -> (URLSessionTask, URLSessionExchange) {
        var urlRequest = urlRequest
        let task: URLSessionTask
        var spooled: URL?
        let readFailure = Locked<String?>(nil)
        if let stream = request.bodyStream {
            #if canImport(FoundationNetworking)
            if stream.length <= Self.inMemoryStreamLimit {
                task = session.uploadTask(with: urlRequest, from: try Self.collect(stream))
            } else {
                // corelibs cannot tell libcurl a stream's length, so libcurl sends it chunked.
                urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
                urlRequest.httpBodyStream = StreamedBodyInputStream(stream, readFailure: readFailure)
                task = session.dataTask(with: urlRequest)
            }
            #else
            let file = try Self.spool(stream)
            spooled = file
            task = session.uploadTask(with: urlRequest, fromFile: file)
            #endif
        } else if let body = request.body, !body.isEmpty {
            task = session.uploadTask(with: urlRequest, from: body)
        } else {
            task = session.dataTask(with: urlRequest)
        }
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation cannot pause a transfer: suspending a running task restarts it
        // from scratch, and every session's work queue targets one queue of the process, so
        // holding a session's callbacks back would stall every URLSession request. A streamed
        // body is read as fast as it arrives, and what its reader has not caught up with past
        // 1 MiB waits on disk (LiveBody's spilled backlog), not in memory.
        let exchange = URLSessionExchange(
            request: request, observer: observer, spooledBody: spooled, readFailure: readFailure, cancelTask: Self.cancellation(of: task))
        #else
        let exchange = URLSessionExchange(
            request: request, observer: observer, spooledBody: spooled, readFailure: readFailure, cancelTask: Self.cancellation(of: task),
            pauseTask: { task.suspend() }, resumeTask: { task.resume() })
        #endif
        delegate.register(exchange, for: task)
        return (task, exchange)
    }

    /// Cancels `task` from a queue of its own, never from the caller's thread.
    private static func cancellation(of task: URLSessionTask) -> @Sendable () -> Void {
        return { cancellationQueue.async { task.cancel() } }
    }

    /// Where tasks are cancelled.
    private static let cancellationQueue = DispatchQueue(label: "Courier.URLSessionTransport.cancel")

    #if canImport(FoundationNetworking)
    /// Streamed bodies up to this size are read into memory and sent with their `Content-Length`;
    /// larger ones go as an `InputStream`, which libcurl sends with chunked transfer encoding.
    static let inMemoryStreamLimit: Int64 = 4 << 20

    /// The whole of a streamed body, for a small upload.
    static func collect(_ body: StreamedBody) throws -> Data {
        do {
            return try body.collect()
        } catch {
            throw CourierError.unreadableBody(error)
        }
    }
    #else
    /// Writes a streamed body to a temporary file for `uploadTask(with:fromFile:)`; the exchange
    /// removes it once the task has ended.
    static func spool(_ body: StreamedBody) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString)")
        do {
            try body.write(to: url)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw CourierError(.encodingFailed, "The upload body could not be prepared: \(error.localizedDescription)", underlyingError: error)
        }
        return url
    }
    #endif
}
