import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport: CallbackTransport {
    /// Starts `request` as a task driven by the session's delegate, so each piece of the body is
    /// reported (or handed on, for a streamed body) as it arrives; `completion` gets what
    /// ``send(_:observer:)`` would return or throw, from the session's delegate queue.
    ///
    /// Cancellation answers the caller at once and asks URLSession to stop the task from another
    /// queue: `URLSessionTask.cancel()` may wait for the session's work queue, which must never
    /// wait on the Swift task whose cancellation handler is running (a deadlock seen with
    /// Foundation's own `data(for:)` when a cancellation races the completion).
    package func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        if let configurationProblem {
            completion(.failure(configurationProblem.at(request.url)))
            return {}
        }
        let task: URLSessionTask
        let exchange: URLSessionExchange
        do {
            (task, exchange) = try makeTask(Self.urlRequest(for: request), request: request, observer: observer)
        } catch {
            completion(.failure(error))
            return {}
        }
        exchange.attach(completion)
        task.resume()
        return {
            exchange.finish(.failure(CourierError.cancelled(request.url)))
            exchange.cancelTask()
        }
    }

    /// The session task for `request` (upload, streamed or data task) and the exchange its
    /// delegate callbacks go to, registered with the delegate; the task is not resumed yet.
    private func makeTask(_ urlRequest: URLRequest, request: TransportRequest, observer: TransferObserver) throws -> (URLSessionTask, URLSessionExchange) {
        var urlRequest = urlRequest
        let task: URLSessionTask
        var spooled: URL?
        if let stream = request.bodyStream {
            #if canImport(FoundationNetworking)
            if stream.length <= Self.inMemoryStreamLimit {
                task = session.uploadTask(with: urlRequest, from: try Self.collect(stream))
            } else {
                // corelibs cannot tell libcurl a stream's length, so libcurl sends it chunked.
                urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
                urlRequest.httpBodyStream = StreamedBodyInputStream(stream)
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
        let exchange = URLSessionExchange(request: request, observer: observer, spooledBody: spooled, cancelTask: Self.cancellation(of: task))
        #else
        let exchange = URLSessionExchange(
            request: request, observer: observer, spooledBody: spooled, cancelTask: Self.cancellation(of: task),
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
            throw CourierError(.encodingFailed, "The upload body could not be read: \(error.localizedDescription)", underlyingError: error)
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
