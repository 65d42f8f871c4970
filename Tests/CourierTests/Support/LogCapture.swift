import Courier
import Logging

/// A log handler that keeps every line, for tests that read what was logged.
final class LogCapture: Sendable {
    let lines = Locked<[String]>([])

    /// A logger at trace level writing here.
    var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.lines.withLock { $0.append("\(event.level) \(event.message) \(event.metadata ?? [:])") }
        }
    }
}
