import Logging

/// Shows a failed request's error to the user (seeds 000/001 show an alert). Set one on
/// ``ClientConfiguration/errorPresenter``; a request opts out with ``RequestSettings/suppressErrorAlert``.
public protocol ErrorPresenter: Sendable {
    /// Presents `error`; `logger` is the client's.
    func present(_ error: CourierError, logger: Logger) async
}

/// Presents errors as a log line with the user message, the classification and the URL.
public struct LoggingErrorPresenter: ErrorPresenter {
    /// The level of the log line.
    public var level: Logger.Level

    /// Creates a presenter that logs at `level` (debug by default).
    public init(level: Logger.Level = .debug) { self.level = level }

    /// Logs `error`.
    public func present(_ error: CourierError, logger: Logger) async {
        logger.log(level: level, "Courier error: \(error.userMessage)", metadata: [
            "classification": "\(error.classification)",
            "url": "\(error.url?.absoluteString ?? "-")",
            "request": "\(error.requestID?.description ?? "-")",
        ])
    }
}
