import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request on ``URLSessionTransport``: the body received so far (in memory, or
/// for a download with a 2xx status in a file beside its destination), progress, and the
/// continuation to resume exactly once.
final class URLSessionExchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var result: Result<TransportResponse, any Error>?
        var response: HTTPURLResponse?
        var body = Data()
        var expectedLength: Int64?
        /// Request body bytes sent so far, summed from each callback's own count.
        var uploadSent: Int64 = 0
        /// The file a 2xx body is written to when the request has a
        /// ``TransportRequest/downloadDestination``.
        var download: PartialDownload?
    }

    let request: TransportRequest
    let observer: TransferObserver
    /// Stops the task (a body over ``TransportRequest/maximumResponseSize``).
    let cancelTask: @Sendable () -> Void
    private let state = Locked(State())

    init(request: TransportRequest, observer: TransferObserver, cancelTask: @escaping @Sendable () -> Void = {}) {
        self.request = request
        self.observer = observer
        self.cancelTask = cancelTask
    }

    /// Stores the continuation, or resumes it at once if the exchange already ended.
    func attach(_ continuation: CheckedContinuation<TransportResponse, any Error>) {
        let early: Result<TransportResponse, any Error>? = state.withLock { state in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Ends the exchange; only the first call counts. A failure removes a partly written download.
    func finish(_ result: Result<TransportResponse, any Error>) {
        let (continuation, download) = state.withLock { state -> (CheckedContinuation<TransportResponse, any Error>?, PartialDownload?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer { state.continuation = nil; state.download = nil }
            return (state.continuation, state.download)
        }
        if case .failure = result { download?.discard() }
        continuation?.resume(with: result)
    }

    /// Fails the exchange with `error` and stops the task.
    private func abandon(with error: any Error) {
        finish(.failure(error))
        cancelTask()
    }

    /// Takes the response head; for a download with a 2xx status, opens the file the body goes to.
    func didReceive(_ response: HTTPURLResponse) {
        var download: PartialDownload?
        if let destination = request.downloadDestination, (200..<300).contains(response.statusCode) {
            do {
                download = try PartialDownload(for: destination)
            } catch {
                return abandon(with: error)
            }
        }
        let ended = state.withLock { state in
            state.response = response
            state.expectedLength = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
            guard state.result == nil else { return true }
            state.download = download
            return false
        }
        if ended { download?.discard() }
        if let maximum = request.maximumResponseSize, response.expectedContentLength > maximum {
            abandon(with: CourierError.responseTooLarge(request.url, maximum: maximum, length: response.expectedContentLength))
        }
    }

    /// Appends a piece of the body (to the download file, if there is one) and reports progress.
    func didReceive(_ data: Data) {
        let outcome: Result<TransferProgress, any Error> = state.withLock { state in
            let received: Int64
            if state.download != nil {
                do { try state.download?.write(data) } catch { return .failure(error) }
                received = state.download?.written ?? 0
            } else {
                received = Int64(state.body.count + data.count)
                if let maximum = request.maximumResponseSize, received > maximum {
                    return .failure(CourierError.responseTooLarge(request.url, maximum: maximum, length: received))
                }
                state.body.append(data)
            }
            return .success(TransferProgress(completed: received, total: state.expectedLength.flatMap { $0 >= received ? $0 : nil }))
        }
        switch outcome {
        case .success(let progress): if progress.total != progress.completed { observer.download?(progress) }
        case .failure(let error): abandon(with: error)
        }
    }

    /// Reports `bytes` more of the request body sent. The running total is summed here:
    /// swift-corelibs-foundation reads its `totalBytesSent` when the delegate queue gets to the
    /// callback, by which time the whole body may have gone, so every report would say "done".
    func didSend(bytes: Int64, expected: Int64) {
        guard bytes > 0 else { return }
        let total = expected > 0 ? expected : request.bodyLength
        let sent = state.withLock { state in
            state.uploadSent += bytes
            return state.uploadSent
        }
        observer.upload?(TransferProgress(completed: min(sent, total), total: total))
    }

    func didComplete(error: (any Error)?) {
        if let error {
            return finish(.failure(URLSessionTransport.courierError(for: error, request: request)))
        }
        let outcome: (TransportResponse, Int64, Int64, PartialDownload?)? = state.withLock { state in
            guard let response = state.response, state.result == nil else { return nil }
            var result = TransportResponse(
                url: response.url ?? request.url, statusCode: response.statusCode,
                headers: URLSessionTransport.headers(of: response), body: state.body)
            result.bodyFile = state.download?.destination
            defer { state.download = nil }
            return (result, state.uploadSent, state.download?.written ?? Int64(state.body.count), state.download)
        }
        guard let (response, uploaded, received, download) = outcome else {
            return finish(.failure(CourierError(.transport, "The server closed the connection without a response.", url: request.url)))
        }
        do {
            try download?.commit()
        } catch {
            return finish(.failure(error))
        }
        let uploadTotal = request.bodyLength
        if uploadTotal > 0, uploaded < uploadTotal {
            observer.upload?(TransferProgress(completed: uploadTotal, total: uploadTotal))
        }
        observer.download?(TransferProgress(completed: received, total: received))
        finish(.success(response))
    }
}
