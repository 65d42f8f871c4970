import Foundation

extension TimeInterval {
    /// Seconds for messages, with their unit: `30 seconds`, `1 second`, `0.5 seconds`,
    /// `1e+300 seconds`. Any value, NaN and infinities included: a whole number becomes an `Int`
    /// only when it fits in one.
    package var secondsPhrase: String {
        let number = Int(exactly: self).map(String.init) ?? String(format: "%g", self)
        return number + (self == 1 ? " second" : " seconds")
    }
}
