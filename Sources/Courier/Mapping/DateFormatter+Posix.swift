import Foundation

extension DateFormatter {
    /// A formatter for a fixed machine format: POSIX locale, the given pattern and time zone. Used only
    /// for patterns ``FixedDateFormat`` does not handle.
    static func posix(format: String, timeZone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter
    }
}
