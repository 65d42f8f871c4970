/// How far an upload or a download has got.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes transferred so far.
    public var completed: Int64
    /// Bytes expected in all, when known (a download without `Content-Length` does not know until it ends).
    public var total: Int64?

    /// Creates a progress value.
    public init(completed: Int64, total: Int64?) {
        self.completed = completed
        self.total = total
    }

    /// `completed / total` between 0 and 1, or `nil` while the total is unknown.
    public var fractionCompleted: Double? {
        guard let total else { return nil }
        return total == 0 ? 1 : Double(completed) / Double(total)
    }

    /// Whether the transfer is complete.
    var isFinished: Bool { total == completed }

    /// `completed/total` bytes.
    public var description: String { "\(completed)/\(total.map(String.init) ?? "?") bytes" }
}

/// Receives progress reports.
public typealias ProgressHandler = @Sendable (TransferProgress) -> Void

/// The progress callbacks a transport reports to while it sends one request.
///
/// Transports report from their own threads, in order. The last upload report has `completed ==
/// total`; the last download report too (with `total` set to the bytes received when the length
/// was unknown).
public struct TransferObserver: Sendable {
    /// Called as request body bytes are sent.
    public var upload: ProgressHandler?
    /// Called as response body bytes arrive.
    public var download: ProgressHandler?

    /// Creates an observer.
    public init(upload: ProgressHandler? = nil, download: ProgressHandler? = nil) {
        self.upload = upload
        self.download = download
    }

    /// An observer that reports nothing.
    public static let none = TransferObserver()
}
