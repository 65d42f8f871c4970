import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request on ``URLSessionTransport``: the body received so far (in memory, or
/// for a download with a 2xx status in a file beside its destination), progress, and the
/// completion to call exactly once.
///
/// The completion can be called before the `URLSessionTask` has ended (a cancellation
/// answers at once). Whatever the task still uses, such as a temporary copy of the body on Apple
/// platforms, is released only in ``taskDidComplete(error:)``, when URLSession is done with it.
final class URLSessionExchange: Sendable {
    private struct State {
        var completion: (@Sendable (Result<TransportResponse, any Error>) -> Void)?
        var result: Result<TransportResponse, any Error>?
        var response: HTTPURLResponse?
        /// The body received so far (counted only, for a download to a file); set with the head.
        var body: ResponseBodyAccumulator?
        /// Request body bytes sent so far, summed from each callback's own count.
        var uploadSent: Int64 = 0
        /// When the response head arrived.
        var headAt: ContinuousClock.Instant?
        /// The file a 2xx body is written to when the request has a
        /// ``TransportRequest/downloadDestination``.
        var download: PartialDownload?
    }

    let request: TransportRequest
    let observer: TransferObserver
    /// Stops the task (a body over ``TransportRequest/maximumResponseSize``).
    let cancelTask: @Sendable () -> Void
    /// A temporary copy of the body the task reads (Apple platforms), removed once it has ended.
    let spooledBody: URL?
    private let state = Locked(State())

    init(
        request: TransportRequest, observer: TransferObserver, spooledBody: URL? = nil,
        cancelTask: @escaping @Sendable () -> Void = {}
    ) {
        self.request = request
        self.observer = observer
        self.spooledBody = spooledBody
        self.cancelTask = cancelTask
    }

    /// Stores the completion, or calls it at once if the exchange already ended.
    func attach(_ completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        let early: Result<TransportResponse, any Error>? = state.withLock { state in
            if let result = state.result { return result }
            state.completion = completion
            return nil
        }
        if let early { completion(early) }
    }

    /// Ends the exchange; only the first call counts. A failure removes a partly written download.
    func finish(_ result: Result<TransportResponse, any Error>) {
        let (completion, download) = state.withLock { state -> ((@Sendable (Result<TransportResponse, any Error>) -> Void)?, PartialDownload?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer { state.completion = nil; state.download = nil }
            return (state.completion, state.download)
        }
        if case .failure = result { download?.discard() }
        completion?(result)
    }

    /// Fails the exchange with `error` and stops the task.
    private func abandon(with error: any Error) {
        finish(.failure(error))
        cancelTask()
    }

    /// Takes the response head; for a download with a 2xx status, opens the file the body goes to.
    func didReceive(_ response: HTTPURLResponse) {
        var download: PartialDownload?
        let body: ResponseBodyAccumulator
        do {
            if let destination = request.downloadDestination, (200..<300).contains(response.statusCode) {
                download = try PartialDownload(for: destination)
            }
            let declared = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
            body = try ResponseBodyAccumulator(
                url: request.url, maximumSize: request.maximumResponseSize, expected: declared, keepsBody: download == nil)
        } catch {
            download?.discard()
            return abandon(with: error)
        }
        let now = ContinuousClock.now
        let ended = state.withLock { state in
            state.response = response
            state.headAt = now
            state.body = body
            guard state.result == nil else { return true }
            state.download?.discard()
            state.download = download
            return false
        }
        if ended { download?.discard() }
    }

    /// Appends a piece of the body (to the download file, if there is one) and reports progress.
    func didReceive(_ data: Data) {
        let outcome: Result<TransferProgress?, any Error> = state.withLock { state in
            guard state.result == nil, state.body != nil else { return .success(nil) }
            do {
                try state.download?.write(data)
                return .success(try state.body?.append(data))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let progress?): observer.download?(progress)
        case .success(nil): break
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

    /// The task has ended: URLSession no longer reads the body or calls back for it. Finishes the
    /// exchange if nothing did before, then releases what the task used.
    func taskDidComplete(error: (any Error)?) {
        if let error {
            finish(.failure(classify(error)))
        } else {
            completeWithReceivedResponse()
        }
        if let spooledBody { try? FileManager.default.removeItem(at: spooledBody) }
    }

    /// Ends the exchange with the response received so far, as a whole response: when the task
    /// completed, or when URLSession raises an authentication challenge after a 401 (the response
    /// has fully arrived by then, and the caller gets it instead of a challenge it cannot answer).
    func completeWithReceivedResponse() {
        let outcome: (TransportResponse, Int64, Int64, PartialDownload?)? = state.withLock { state in
            guard let response = state.response, state.result == nil else { return nil }
            var result = TransportResponse(
                url: response.url ?? request.url, statusCode: response.statusCode,
                headers: URLSessionTransport.headers(of: response), body: state.body?.takeBody() ?? Data())
            result.bodyFile = state.download?.destination
            result.headersReceivedAt = state.headAt
            defer { state.download = nil }
            return (result, state.body?.received ?? 0, state.uploadSent, state.download)
        }
        guard let (arrived, received, uploaded, download) = outcome else {
            // No response head (or the exchange already ended, and then `finish` does nothing).
            return finish(.failure(CourierError(
                .connectionLost, "\(request.url.hostAndPort) closed the connection without answering.", url: request.url)))
        }
        var response = arrived
        do {
            try ResponseFraming.check(
                received: received, headers: response.headers, statusCode: response.statusCode, method: request.method, url: request.url)
        } catch {
            download?.discard()
            return finish(.failure(error))
        }
        response.headers = ResponseFraming.decoded(response.headers)
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

    /// The user's challenge handler supplied a credential: URLSession sends the request again, so
    /// what arrived of the first answer is forgotten.
    func restart() {
        state.withLock { state in
            state.response = nil
            state.body = nil
        }
    }

    /// A new stream over the request body, for when libcurl rewinds it (a reused connection that
    /// closed before the request went out); `nil` when the body is not streamed.
    func makeBodyStream() -> InputStream? {
        #if canImport(FoundationNetworking)
        return request.bodyStream.map { StreamedBodyInputStream($0) }
        #else
        return nil
        #endif
    }

    /// A failure of the task, classified with what had arrived before it.
    private func classify(_ error: any Error) -> CourierError {
        let (headReceived, received, expected) = state.withLock { ($0.response != nil, $0.body?.received ?? 0, $0.body?.expected) }
        return URLSessionTransport.courierError(for: error, request: request, headReceived: headReceived, received: received, expected: expected)
    }
}
