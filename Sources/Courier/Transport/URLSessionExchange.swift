import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request on ``URLSessionTransport``: the body received so far, progress, and the
/// continuation to resume exactly once.
final class URLSessionExchange: Sendable {
    private struct State {
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var result: Result<TransportResponse, any Error>?
        var response: HTTPURLResponse?
        var body = Data()
        var expectedLength: Int64?
        var uploadReported: Int64 = 0
        /// Where a download task's body went (``TransportRequest/downloadDestination``).
        var bodyFile: URL?
        var fileFailure: (any Error)?
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

    /// Fails the exchange and stops the task when `length` passes the maximum.
    private func refuse(ifOver length: Int64) -> Bool {
        guard let maximum = request.maximumResponseSize, length > maximum else { return false }
        finish(.failure(CourierError.responseTooLarge(request.url, maximum: maximum, length: length)))
        cancelTask()
        return true
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

    /// Ends the exchange; only the first call counts.
    func finish(_ result: Result<TransportResponse, any Error>) {
        let continuation: CheckedContinuation<TransportResponse, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    func didReceive(_ response: HTTPURLResponse) {
        state.withLock { state in
            state.response = response
            state.expectedLength = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        }
        if response.expectedContentLength >= 0 { _ = refuse(ifOver: response.expectedContentLength) }
    }

    func didReceive(_ data: Data) {
        let received = state.withLock { Int64($0.body.count + data.count) }
        if refuse(ifOver: received) { return }
        let progress: TransferProgress = state.withLock { state in
            state.body.append(data)
            let received = Int64(state.body.count)
            let total = state.expectedLength.flatMap { $0 >= received ? $0 : nil }
            return TransferProgress(completed: received, total: total)
        }
        if progress.total != progress.completed { observer.download?(progress) }
    }

    func didSend(totalBytesSent: Int64, expected: Int64) {
        let total = expected > 0 ? expected : request.bodyLength
        let report: Bool = state.withLock { state in
            guard totalBytesSent > state.uploadReported else { return false }
            state.uploadReported = totalBytesSent
            return true
        }
        if report { observer.upload?(TransferProgress(completed: min(totalBytesSent, total), total: total)) }
    }

    /// A download task's progress, as URLSession writes its file.
    func didWrite(totalBytesWritten: Int64, expected: Int64) {
        let total = expected > 0 && expected != totalBytesWritten ? expected : nil
        if total != nil { observer.download?(TransferProgress(completed: totalBytesWritten, total: total)) }
    }

    /// A download task's file, which must be moved before this returns: into the destination for
    /// a 2xx response, else read back as the body.
    func didFinishDownloading(to location: URL, response: URLResponse?) {
        guard let http = response as? HTTPURLResponse else { return }
        if let destination = request.downloadDestination, (200..<300).contains(http.statusCode) {
            do {
                try FileReplacement.replace(destination, with: location)
                state.withLock { state in
                    state.response = http
                    state.bodyFile = destination
                }
            } catch {
                state.withLock { $0.fileFailure = error }
            }
        } else {
            let body = (try? Data(contentsOf: location)) ?? Data()
            state.withLock { state in
                state.response = http
                state.body = body
            }
        }
    }

    func didComplete(error: (any Error)?) {
        if let error {
            return finish(.failure(URLSessionTransport.courierError(for: error, request: request)))
        }
        if let failure = state.withLock({ $0.fileFailure }) { return finish(.failure(failure)) }
        let outcome: (TransportResponse, Int64, Int64)? = state.withLock { state in
            guard let response = state.response else { return nil }
            var result = TransportResponse(
                url: response.url ?? request.url, statusCode: response.statusCode,
                headers: URLSessionTransport.headers(of: response), body: state.body)
            result.bodyFile = state.bodyFile
            let received = state.bodyFile.flatMap {
                (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber)?.int64Value
            } ?? Int64(state.body.count)
            return (result, state.uploadReported, received)
        }
        guard let (response, uploaded, received) = outcome else {
            return finish(.failure(CourierError(.transport, "The server closed the connection without a response.", url: request.url)))
        }
        let uploadTotal = request.bodyLength
        if uploadTotal > 0, uploaded < uploadTotal {
            observer.upload?(TransferProgress(completed: uploadTotal, total: uploadTotal))
        }
        observer.download?(TransferProgress(completed: received, total: received))
        finish(.success(response))
    }
}
