import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request on ``URLSessionTransport``: the body received so far (in memory, or
/// handed on as it arrives in a ``LiveBody`` for a 2xx answer to a request that streams its body),
/// progress, and the completion to call exactly once.
///
/// The completion can be called before the `URLSessionTask` has ended (a cancellation answers at
/// once; a streamed body's head completes the exchange and its body follows). Whatever the task
/// still uses, such as a temporary copy of the body on Apple platforms, is released only in
/// ``taskDidComplete(error:)``, when URLSession is done with it.
final class URLSessionExchange: Sendable {
    private struct State {
        var completion: (@Sendable (Result<TransportResponse, any Error>) -> Void)?
        var result: Result<TransportResponse, any Error>?
        var response: HTTPURLResponse?
        /// The body received so far (counted only, for a live body); set with the head.
        var body: ResponseBodyAccumulator?
        /// Where a 2xx body goes as it arrives, for a request that streams its body.
        var live: LiveBody?
        /// Request body bytes sent so far, summed from each callback's own count.
        var uploadSent: Int64 = 0
        /// When the response head arrived.
        var headAt: ContinuousClock.Instant?
        /// Pauses asked for less resumes: the reading is paused while it is above 0. A resume can
        /// come before the pause it answers (the reader caught up at once), so they are counted.
        var pauses = 0
    }

    let request: TransportRequest
    let observer: TransferObserver
    /// Stops the task (a body over ``TransportRequest/maximumResponseSize``).
    let cancelTask: @Sendable () -> Void
    /// Pauses and resumes the task's reading, for a live body whose reader is behind (Apple
    /// platforms; swift-corelibs-foundation cannot pause a transfer, see ``URLSessionTransport``).
    let pauseTask: (@Sendable () -> Void)?
    let resumeTask: (@Sendable () -> Void)?
    /// A temporary copy of the body the task reads (Apple platforms), removed once it has ended.
    let spooledBody: URL?
    /// Why the streamed body could not be read, once it could not.
    let readFailure: Locked<String?>
    private let state = Locked(State())

    init(
        request: TransportRequest, observer: TransferObserver, spooledBody: URL? = nil, readFailure: Locked<String?> = Locked(nil),
        cancelTask: @escaping @Sendable () -> Void = {}, pauseTask: (@Sendable () -> Void)? = nil, resumeTask: (@Sendable () -> Void)? = nil
    ) {
        self.request = request
        self.observer = observer
        self.spooledBody = spooledBody
        self.readFailure = readFailure
        self.cancelTask = cancelTask
        self.pauseTask = pauseTask
        self.resumeTask = resumeTask
    }

    /// Whether the response head arrived.
    var headArrived: Bool { state.withLock { $0.response != nil } }

    /// Stores the completion, or calls it at once if the exchange already ended.
    func attach(_ completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) {
        let early: Result<TransportResponse, any Error>? = state.withLock { state in
            if let result = state.result { return result }
            state.completion = completion
            return nil
        }
        if let early { completion(early) }
    }

    /// Ends the exchange; only the first call counts.
    func finish(_ result: Result<TransportResponse, any Error>) {
        let completion = state.withLock { state -> (@Sendable (Result<TransportResponse, any Error>) -> Void)? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.completion = nil }
            return state.completion
        }
        completion?(result)
    }

    /// Fails the exchange with `error` (and its live body, if it has one) and stops the task.
    private func abandon(with error: any Error) {
        let live = state.withLock { $0.live }
        live?.finish(CourierError.wrap(error, url: request.url))
        finish(.failure(error))
        cancelTask()
    }

    /// Takes the response head. A 2xx answer to a request that streams its body completes the
    /// exchange now, with a live body that the following pieces go to.
    func didReceive(_ response: HTTPURLResponse) {
        let streams = request.streamsBody && (200..<300).contains(response.statusCode)
        let body: ResponseBodyAccumulator
        do {
            let declared = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
            body = try ResponseBodyAccumulator(
                url: request.url, maximumSize: request.maximumResponseSize, expected: declared, keepsBody: !streams)
        } catch {
            return abandon(with: error)
        }
        let now = ContinuousClock.now
        // Without a way to pause the task (swift-corelibs-foundation), a reader's backlog goes to disk.
        let live = streams ? LiveBody(url: response.url ?? request.url, spillsBacklog: pauseTask == nil) : nil
        let ended = state.withLock { state in
            state.response = response
            state.headAt = now
            state.body = body
            state.live = live
            return state.result != nil
        }
        guard let live, !ended else { return }
        live.onStop { [self] in
            finish(.failure(CourierError.cancelled(request.url)))
            cancelTask()
        }
        var head = TransportResponse(
            url: response.url ?? request.url, statusCode: response.statusCode,
            headers: ResponseFraming.decoded(URLSessionTransport.headers(of: response)))
        head.headersReceivedAt = now
        head.liveBody = live
        finish(.success(head))
    }

    /// Appends a piece of the body (or hands it to the live body) and reports progress.
    func didReceive(_ data: Data) {
        let outcome: Result<(TransferProgress?, LiveBody?), any Error> = state.withLock { state in
            guard state.live != nil || state.result == nil, state.body != nil else { return .success((nil, nil)) }
            do {
                return .success((try state.body?.append(data), state.live))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let (progress, live)):
            if let live, !live.deliver(data, resume: { [self] in changePauses(by: -1) }) { changePauses(by: 1) }
            if let progress { observer.download?(progress) }
        case .failure(let error): abandon(with: error)
        }
    }

    /// Pauses the reading when the count rises to 1 and resumes it when it falls back to 0, in
    /// the order the changes are counted (under the lock).
    private func changePauses(by change: Int) {
        state.withLock { state in
            state.pauses += change
            if change > 0, state.pauses == 1 { pauseTask?() }
            if change < 0, state.pauses == 0 { resumeTask?() }
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
    /// exchange (or its live body) if nothing did before, then releases what the task used.
    /// `taskResponse` is the task's own `response`, for an answer the delegate was never told of.
    func taskDidComplete(error: (any Error)?, taskResponse: URLResponse? = nil) {
        if let error {
            let failure = classify(error)
            state.withLock { $0.live }?.finish(failure)
            finish(.failure(failure))
        } else {
            completeWithReceivedResponse(taskResponse: taskResponse)
        }
        if let spooledBody { try? FileManager.default.removeItem(at: spooledBody) }
    }

    /// Ends the exchange with the response received so far, as a whole response (or ends its
    /// live body): when the task completed, or when URLSession raises an authentication challenge
    /// after a 401 (the response has fully arrived by then, and the caller gets it instead of a
    /// challenge it cannot answer).
    func completeWithReceivedResponse(taskResponse: URLResponse? = nil) {
        let outcome: (TransportResponse, Int64, Int64, LiveBody?)? = state.withLock { state in
            guard let response = state.response, state.live != nil || state.result == nil else { return nil }
            var result = TransportResponse(
                url: response.url ?? request.url, statusCode: response.statusCode,
                headers: URLSessionTransport.headers(of: response), body: state.body?.takeBody() ?? Data())
            result.headersReceivedAt = state.headAt
            return (result, state.body?.received ?? 0, state.uploadSent, state.live)
        }
        guard let (arrived, received, uploaded, live) = outcome else {
            if let redirect = taskResponse as? HTTPURLResponse, (301...308).contains(redirect.statusCode) {
                // swift-corelibs-foundation keeps a 301–308 from the delegate until it decides to
                // follow it; with no Location it never does, and neither head nor body arrive.
                return finish(.failure(CourierError(
                    .invalidResponse,
                    "\(request.url.hostAndPort) answered \(redirect.statusCode) without a Location header, which URLSession on Linux "
                        + "(swift-corelibs-foundation) does not hand back: neither its headers nor its body reach Courier. "
                        + "AsyncHTTPClientTransport reads such an answer.",
                    url: request.url, statusCode: redirect.statusCode)))
            }
            // No response head (or the exchange already ended, and then `finish` does nothing).
            return finish(.failure(CourierError(
                .connectionLost, "\(request.url.hostAndPort) closed the connection without answering.", url: request.url)))
        }
        var response = arrived
        do {
            try ResponseFraming.check(
                received: received, headers: response.headers, statusCode: response.statusCode, method: request.method, url: request.url)
        } catch {
            live?.finish(CourierError.wrap(error, url: request.url))
            return finish(.failure(error))
        }
        response.headers = ResponseFraming.decoded(response.headers)
        let uploadTotal = request.bodyLength
        if uploadTotal > 0, uploaded < uploadTotal {
            observer.upload?(TransferProgress(completed: uploadTotal, total: uploadTotal))
        }
        observer.download?(TransferProgress(completed: received, total: received))
        live?.finish(nil)
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

    /// URLSession wants the request body again: libcurl rewinds it to send the request once more
    /// on a fresh connection when a reused one closed without answering. That connection may have
    /// closed before the request reached the server, or after the server took and applied it (a
    /// lost acknowledgement), and nothing tells the two apart. URLSession never sends a request
    /// twice here, whatever its method: the exchange fails at once as a lost connection, as on
    /// async-http-client, and the request's retry policy decides whether to send it again.
    /// swift-corelibs-foundation cannot refuse the rewind itself, so libcurl may send the request
    /// head once more, with no body, before the task is cancelled: an incomplete request that no
    /// server applies.
    func refuseResend() {
        abandon(with: CourierError(
            .connectionLost,
            "\(request.url.hostAndPort) closed the connection after the request was sent, without answering: "
                + "the server may have received it, so it was not sent again.",
            url: request.url))
    }

    /// A failure of the task, classified with what had arrived before it.
    private func classify(_ error: any Error) -> CourierError {
        if let failure = readFailure.withLock({ $0 }) { return .unreadableBody(CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: failure])) }
        let (headReceived, received, expected) = state.withLock { ($0.response != nil, $0.body?.received ?? 0, $0.body?.expected) }
        return URLSessionTransport.courierError(for: error, request: request, headReceived: headReceived, received: received, expected: expected)
    }
}
