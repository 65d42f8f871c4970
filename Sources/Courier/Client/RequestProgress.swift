/// A request's progress handlers, each behind a ``ProgressRelay`` to the request's callback queue,
/// and the observer that transports report to. A request without handlers has an empty observer:
/// no report is made for it.
struct RequestProgress: Sendable {
    let upload: ProgressRelay?
    let download: ProgressRelay?
    let transfer: TransferObserver

    init(upload: ProgressRelay?, download: ProgressRelay?, sent: ProgressHandler? = nil) {
        self.upload = upload
        self.download = download
        var reportUpload: ProgressHandler? = upload.map { $0.report }
        if let sent {
            if let relay = reportUpload {
                reportUpload = { @Sendable progress in
                    sent(progress)
                    relay(progress)
                }
            } else {
                reportUpload = sent
            }
        }
        transfer = TransferObserver(upload: reportUpload, download: download.map { $0.report })
    }

    /// Whether either direction reports progress (``flush()`` has nothing to wait for otherwise).
    var hasRelays: Bool { upload != nil || download != nil }

    /// Returns once every report made so far has been delivered.
    func flush() async {
        await upload?.flush()
        await download?.flush()
    }
}

extension APIClient {
    /// The progress relays of a request, on its callback queue (else the client's).
    func progressObserver(for settings: RequestSettings) -> RequestProgress {
        guard settings.uploadProgress != nil || settings.downloadProgress != nil || settings.sentBodyObserver != nil else {
            return RequestProgress(upload: nil, download: nil)
        }
        let queue = settings.callbackQueue ?? configuration.callbackQueue
        return RequestProgress(
            upload: settings.uploadProgress.map { ProgressRelay(handler: $0, queue: queue) },
            download: settings.downloadProgress.map { ProgressRelay(handler: $0, queue: queue) }, sent: settings.sentBodyObserver)
    }
}
