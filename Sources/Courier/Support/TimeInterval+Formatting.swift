import Foundation

extension TimeInterval {
    /// Seconds for messages: `30`, `0.5`, `1e+300`. Any value, NaN and infinities included: a
    /// whole number becomes an `Int` only when it fits in one.
    package var formattedSeconds: String {
        if let whole = Int(exactly: self) { return String(whole) }
        return String(format: "%g", self)
    }
}
