import Foundation

/// The wait a `Retry-After` header asks for: delay-seconds (`120`) or an HTTP date
/// (`Wed, 21 Oct 2026 07:28:00 GMT`), measured from `now`. A date in the past means no wait.
package enum RetryAfter {
    package static func delay(_ value: String?, now: Date = Date()) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int64(text) {
            return seconds >= 0 ? .seconds(seconds) : nil
        }
        guard let date = HTTPDate.parse(text, now: now) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}
