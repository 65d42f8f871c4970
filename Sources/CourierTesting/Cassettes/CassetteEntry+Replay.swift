import Courier
import Foundation

extension CassetteEntry {
    /// The size of the pieces progress is reported in, and a download is written in.
    static let replayChunk = 64 * 1024

    /// Answers `request` with this entry as a transport would: upload and download progress in
    /// pieces, the response size limit, a 2xx body written to the download destination a piece at
    /// a time, cancellation between pieces. `shownURL` (the request's URL, redacted) is the one
    /// errors name.
    func answer(_ request: TransportRequest, shownURL: URL, observer: TransferObserver) throws(CourierError) -> TransportResponse {
        try Self.checkCancellation(shownURL)
        if let failure {
            let reason = failure.error.map { " (\($0))" } ?? ""
            let what = failure.kind == .cancelled ? "was cancelled before it got an answer" : "got no answer"
            throw CourierError(
                failure.kind,
                "The recorded request \(request.method) \(shownURL.absoluteString) \(what)\(reason): the cassette replays that failure.",
                url: shownURL)
        }
        if let upload = observer.upload {
            let total = request.bodyLength
            var sent: Int64 = 0
            while sent < total {
                sent = min(total, sent + Int64(Self.replayChunk))
                upload(TransferProgress(completed: sent, total: total))
            }
        }
        if let maximum = request.maximumResponseSize, Int64(body.count) > maximum {
            throw CourierError.responseTooLarge(shownURL, maximum: maximum, length: Int64(body.count))
        }
        var response = TransportResponse(url: request.url, statusCode: status, headers: headers)
        response.headersReceivedAt = .now
        try reportDownload(observer.download, shownURL: shownURL)
        response.body = body
        return response
    }

    private func reportDownload(_ download: ProgressHandler?, shownURL: URL) throws(CourierError) {
        guard let download else { return }
        let total = Int64(body.count)
        var received: Int64 = 0
        repeat {
            try Self.checkCancellation(shownURL)
            received = min(total, received + Int64(Self.replayChunk))
            download(TransferProgress(completed: received, total: total))
        } while received < total
    }

    private static func checkCancellation(_ url: URL) throws(CourierError) {
        if Task.isCancelled { throw CourierError(.cancelled, "The request was cancelled.", url: url) }
    }
}
