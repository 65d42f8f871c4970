import Logging
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// Shows a failed request's error to the user (seeds 000/001 show an alert): ``logging(level:)``,
/// ``alert(title:buttonTitle:)`` where UIKit exists, or your own function through ``init(_:)``.
/// Set one on ``ClientConfiguration/errorPresenter``; a request opts out with
/// ``RequestSettings/suppressErrorAlert``.
public struct ErrorPresenter: Sendable {
    private let presenter: @Sendable (CourierError, Logger) async -> Void

    /// A presenter that calls `present` with the error and the client's logger.
    public init(_ present: @escaping @Sendable (_ error: CourierError, _ logger: Logger) async -> Void) {
        presenter = present
    }

    /// Presents `error`; `logger` is the client's.
    func present(_ error: CourierError, logger: Logger) async { await presenter(error, logger) }

    /// Presents errors as a log line at `level` with the user message, the classification and the
    /// URL.
    public static func logging(level: Logger.Level = .debug) -> ErrorPresenter {
        ErrorPresenter { error, logger in
            logger.log(level: level, "Courier error: \(error.userMessage)", metadata: [
                "classification": "\(error.classification)",
                "url": "\(error.url?.absoluteString ?? "-")",
                "request": "\(error.requestID?.description ?? "-")",
            ])
        }
    }

    #if canImport(UIKit) && !os(watchOS)
    /// Presents errors in a `UIAlertController` on the frontmost view controller of the key
    /// window, with the error's ``CourierError/userMessage`` and one button; logs instead when no
    /// view controller can present it.
    public static func alert(title: String = "Error", buttonTitle: String = "OK") -> ErrorPresenter {
        ErrorPresenter { error, logger in
            let message = error.userMessage
            let presented = await MainActor.run { () -> Bool in
                let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
                guard var top = scenes.flatMap(\.windows).first(where: \.isKeyWindow)?.rootViewController else { return false }
                while let next = top.presentedViewController { top = next }
                let alert = UIAlertController(title: title, message: message, preferredStyle: .alert)
                alert.addAction(UIAlertAction(title: buttonTitle, style: .default))
                top.present(alert, animated: true)
                return true
            }
            if !presented {
                logger.warning("Courier error (no view controller to present it): \(message)")
            }
        }
    }
    #endif
}
