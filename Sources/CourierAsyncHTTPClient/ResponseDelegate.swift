import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Reads one response from async-http-client's delegate callbacks, with the same checks on every
/// request: the content coding, the declared length, the request's maximum size, and download
/// progress. The body is gathered in memory, or, for a 2xx answer to a request that streams its
/// body, handed on to a ``Courier/LiveBody`` as it arrives: the exchange then completes at the
/// head, and a reader that is behind pauses the reading (the body part's future waits for it).
///
/// It also keeps the request's idle timeout: the ``IdleSweep`` of the task's event loop watches it,
/// and fails the task once nothing was sent or received for `timeout`.
///
/// async-http-client calls it on the request's event loop, one callback at a time; the lock only
/// makes that visible to the compiler (the idle sweep and the completion come from elsewhere).
final class ResponseDelegate: HTTPClientResponseDelegate, Sendable {
    typealias Response = TransportResponse

    private struct State {
        /// The head, until the body is complete (``didFinishRequest(task:)`` takes it).
        var response: TransportResponse?
        /// The body, from the head on: set once the head arrived.
        var body: ResponseBodyAccumulator?
        var live: LiveBody?
        var completion: (@Sendable (Result<TransportResponse, any Error>) -> Void)?
        /// When something was last sent or received.
        var lastActivity = NIODeadline.now()
        /// The body bytes written to the connection.
        var bodySent: Int64 = 0
        /// What the reading waits on while the reader is behind (not idleness); `readerCaughtUp`
        /// when the reader caught up before the wait was set.
        var pause: EventLoopPromise<Void>?
        var readerCaughtUp = false
        /// The task, once started; the sweep that watches it.
        var task: HTTPClient.Task<TransportResponse>?
        var sweep: IdleSweep?
        /// Whether the sweep failed the task already.
        var timedOut = false
        var ended = false
    }

    private let transport: AsyncHTTPClientTransport
    private let request: TransportRequest
    private let observer: TransferObserver
    private let idleTimeout: TimeAmount
    /// The control to send the request again under, in place of failing, when its connection
    /// closes before any of the answer came; `nil` when it may not be sent again.
    private let resendControl: ExchangeControl?
    /// Ends a request body still going out once an answer of 300 or more has come whole; `nil`
    /// for a request without a body.
    private let unwantedBody: UnwantedBody?
    private let state: Locked<State>

    init(
        transport: AsyncHTTPClientTransport, request: TransportRequest, observer: TransferObserver,
        resendControl: ExchangeControl?, unwantedBody: UnwantedBody? = nil,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) {
        self.transport = transport
        self.request = request
        self.observer = observer
        self.resendControl = resendControl
        self.unwantedBody = unwantedBody
        idleTimeout = .nanoseconds(request.timeoutNanoseconds)
        state = Locked(State(completion: completion))
    }

    // MARK: The exchange

    /// The task runs: its event loop's sweep watches it. An exchange that ended first is not
    /// watched; one that ends between the two is forgotten at the sweep's next look.
    func started(_ task: HTTPClient.Task<TransportResponse>, sweep: IdleSweep) {
        let watch = state.withLock { state in
            guard !state.ended else { return false }
            state.task = task
            state.sweep = sweep
            return true
        }
        if watch { sweep.watch(self) }
    }

    /// What the sweep does with this exchange: fail its task when nothing moved for the whole
    /// timeout (once), forget it once ended, else nothing. Waiting for a reader that is behind is
    /// not idleness.
    enum IdleCheck {
        case active
        case ended
        case expired(HTTPClient.Task<TransportResponse>)
    }

    func idleCheck(at now: NIODeadline) -> IdleCheck {
        state.withLock { state in
            if state.ended { return .ended }
            guard let task = state.task, !state.timedOut, state.pause == nil, now - state.lastActivity >= idleTimeout else {
                return .active
            }
            state.timedOut = true
            return .expired(task)
        }
    }

    private func touch() {
        let now = NIODeadline.now()
        state.withLock { $0.lastActivity = now }
    }

    /// The task's outcome: completes the exchange if its head did not, else ends the live body.
    func ended(_ result: Result<TransportResponse, any Error>) {
        var result = result
        if case .failure(let error) = result, (error as? HTTPClientError) == .requestStreamCancelled, unwantedBody?.ended == true,
           let answer = try? wholeResponse() {
            result = .success(answer)  // the body ended short after a whole answer of 300 or more
        }
        let (completion, live, sweep, headReceived, received, expected) = state.withLock { state in
            state.ended = true
            defer {
                state.completion = nil
                state.sweep = nil
                state.task = nil
            }
            return (state.completion, state.live, state.sweep, state.body != nil, state.body?.received ?? 0, state.body?.expected)
        }
        sweep?.unwatch(self)
        if !headReceived, let resendControl, let completion, case .failure(let error) = result,
           AsyncHTTPClientTransport.closedBeforeAnswering(error) {
            transport.start(request, observer: observer, control: resendControl, mayResend: false, completion: completion)
            return
        }
        if !headReceived, let completion, case .failure(let error) = result, ChainDiagnosis.applies(to: error),
           let host = request.url.host, let port = request.url.port ?? (request.url.scheme == "https" ? 443 : nil) {
            // Worded once the chain was read again: expired, not yet valid, or an unknown root.
            let refusal = AsyncHTTPClientTransport.courierError(for: error, request: request, proxy: transport.proxy)
            let configuration = transport.tlsConfiguration
            let url = request.url
            Task {
                let reason = await ChainDiagnosis.reason(host: host, port: port, configuration: configuration)
                completion(.failure(reason.map { CourierError.untrustedServer(url, reason: $0, underlyingError: error) } ?? refusal))
            }
            return
        }
        let outcome = result.mapError { error -> any Error in
            let cause: any Error = headReceived && !(error is CourierError)
                ? BodyInterrupted(underlying: error, received: received, expected: expected) : error
            return AsyncHTTPClientTransport.courierError(for: cause, request: request, proxy: transport.proxy)
        }
        if let completion {
            completion(outcome)
        } else if let live {
            switch outcome {
            case .success: live.finish(nil)
            case .failure(let error): live.finish(CourierError.wrap(error, url: request.url))
            }
        }
    }

    // MARK: async-http-client's callbacks

    func didSendRequestHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPRequestHead) {
        touch()
        if let upload = observer.upload, case let total = request.bodyLength, total > 0 { upload(TransferProgress(completed: 0, total: total)) }
    }

    /// A piece of the body was written to the connection: upload progress counts it now, not when
    /// it was handed over (async-http-client takes pieces ahead of its writes while the
    /// connection is writable), so the bytes sent of a request cut short are those that left.
    func didSendRequestPart(task: HTTPClient.Task<TransportResponse>, _ part: IOData) {
        let now = NIODeadline.now()
        let sent = state.withLock { state in
            state.lastActivity = now
            state.bodySent += Int64(part.readableBytes)
            return state.bodySent
        }
        if let upload = observer.upload { upload(TransferProgress(completed: sent, total: request.bodyLength)) }
    }

    func didReceiveHead(task: HTTPClient.Task<TransportResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        do {
            let (response, expected) = try transport.head(status: head.status, fields: head.headers, request: request)
            let streams = request.streamsBody && (200..<300).contains(response.statusCode)
            let body = try ResponseBodyAccumulator(url: request.url, maximumSize: request.maximumResponseSize, expected: expected, keepsBody: !streams)
            let live = streams ? LiveBody(url: request.url) : nil
            let now = NIODeadline.now()
            let completion = state.withLock { state -> (@Sendable (Result<TransportResponse, any Error>) -> Void)? in
                state.response = response
                state.body = body
                state.live = live
                state.lastActivity = now
                guard streams else { return nil }
                defer { state.completion = nil }
                return state.completion
            }
            if let live, let completion {
                live.onStop { task.cancel() }
                var head = response
                head.liveBody = live
                completion(.success(head))
            }
            if response.statusCode >= 300, expected == 0 { endUnwantedBody(task) }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<TransportResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let now = NIODeadline.now()
        let watchesAnswer = unwantedBody != nil
        // Set under the lock and read after it: a tuple or a `Result` holding them went through
        // the runtime's value witnesses for every piece (the lock runs unspecialised here).
        var progress: TransferProgress?
        var live: LiveBody?
        var answered = false
        do throws(CourierError) {
            try state.withLock { state throws(CourierError) in
                state.lastActivity = now
                progress = try buffer.withUnsafeReadableBytes { bytes throws(CourierError) in try state.body?.append(bytes) }
                // A whole answer of 300 or more to a request whose body may still be going out.
                answered = watchesAnswer && (state.response?.statusCode ?? 0) >= 300
                    && state.body.map { $0.received == $0.expected } == true
                live = state.live
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        if let progress { observer.download?(progress) }
        if answered { endUnwantedBody(task) }
        guard let live, !live.deliver(BufferPiece(buffer: buffer), resume: { [self] in readerCaughtUp() }) else {
            return task.eventLoop.makeSucceededVoidFuture()
        }
        // The reader is behind: the reading waits for it, unless it caught up meanwhile.
        return state.withLock { state in
            guard !state.readerCaughtUp else {
                state.readerCaughtUp = false
                return task.eventLoop.makeSucceededVoidFuture()
            }
            let pause = task.eventLoop.makePromise(of: Void.self)
            state.pause = pause
            return pause.futureResult
        }
    }

    /// The reader of a live body caught up after a piece that paused the reading: the reading
    /// goes on (or will not wait, when the pause is not set yet).
    private func readerCaughtUp() {
        let now = NIODeadline.now()
        state.withLock { state -> EventLoopPromise<Void>? in
            state.lastActivity = now
            guard let pause = state.pause.take() else {
                state.readerCaughtUp = true
                return nil
            }
            return pause
        }?.succeed(())
    }

    /// Ends the request's body, when it is still going out, after the whole answer of 300 or more
    /// (`Content-Length` bytes) has come; from the event loop, so that async-http-client has taken
    /// the answer's end first (see ``UnwantedBody``). An answer of unknown length leaves the body
    /// to the idle timeout.
    private func endUnwantedBody(_ task: HTTPClient.Task<TransportResponse>) {
        guard let unwantedBody else { return }
        task.eventLoop.execute { unwantedBody.end() }
    }

    func didFinishRequest(task: HTTPClient.Task<TransportResponse>) throws -> TransportResponse {
        try wholeResponse()
    }

    /// The response, once its body is whole.
    private func wholeResponse() throws -> TransportResponse {
        // The response is taken out of the state, so that setting its body does not copy it.
        let (response, live) = state.withLock { state -> (TransportResponse?, LiveBody?) in
            guard var response = state.response.take() else { return (nil, nil) }
            response.body = state.body?.takeBody() ?? Data()
            return (response, state.live)
        }
        guard let response else {
            throw CourierError(.invalidResponse, "\(request.url.hostAndPort) ended the exchange without a response.", url: request.url)
        }
        let count = live?.received ?? Int64(response.body.count)
        observer.download?(TransferProgress(completed: count, total: count))
        return response
    }
}

/// A piece of a streamed body as async-http-client hands it over: joined to the pieces before it
/// from where it is, and made a `Data` only when ``Courier/LiveBody`` hands it on whole.
struct BufferPiece: LiveBody.Piece {
    let buffer: ByteBuffer

    var count: Int { buffer.readableBytes }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try buffer.withUnsafeReadableBytes(body)
    }

    func makeData() -> Data { Data(buffer: buffer) }
}

/// A failure while the response body was read: the head had arrived, and `received` bytes of the
/// body, so the failure is a lost connection or a malformed body, not a failure to connect.
struct BodyInterrupted: Error {
    let underlying: any Error
    let received: Int64
    let expected: Int64?
}

/// The request's idle timeout passed with nothing sent or received.
struct IdleTimeout: Error {}
