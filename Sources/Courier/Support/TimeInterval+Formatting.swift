import Foundation

extension TimeInterval {
    /// Seconds for messages: `30`, `0.5`.
    package var formattedSeconds: String {
        self == rounded() ? String(Int(self)) : String(format: "%g", self)
    }
}
