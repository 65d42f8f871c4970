#if canImport(UIKit) && !os(watchOS)
import Logging
import UIKit

/// Presents errors in a `UIAlertController` on the frontmost view controller of the key window,
/// with the error's ``CourierError/userMessage`` and an OK button.
public struct AlertErrorPresenter: ErrorPresenter {
    /// The alert's title.
    public var title: String
    /// The button's title.
    public var buttonTitle: String

    /// Creates a presenter.
    public init(title: String = "Error", buttonTitle: String = "OK") {
        self.title = title
        self.buttonTitle = buttonTitle
    }

    /// Shows the alert on the main actor; logs instead when no view controller can present it.
    public func present(_ error: CourierError, logger: Logger) async {
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
