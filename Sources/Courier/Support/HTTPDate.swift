import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP dates (RFC 9110 §5.6.7), written and read by hand: a `DateFormatter` per header costs
/// more than the rest of a small exchange. Written in the preferred IMF-fixdate form
/// (`Sun, 06 Nov 1994 08:49:37 GMT`); read in that form and in the two obsolete ones a recipient
/// must still accept, RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`).
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The dates ``format(_:)`` writes: years 1900 to 9999, as IMF-fixdate's four digits allow.
    package static let writableSeconds: ClosedRange<Double> = -2_208_988_800...253_402_300_799

    /// `date` in IMF-fixdate form, to the second; `nil` for a date outside ``writableSeconds``
    /// (an infinite or NaN interval among them), which has no such text.
    package static func format(_ date: Date) -> String? {
        guard writableSeconds.contains(date.timeIntervalSince1970) else { return nil }  // NaN is in no range
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The date `text` gives in any of the three forms, or `nil`. Names of days and months and
    /// `GMT` are read in any case (RFC 9110 §5.6.7 makes them case-sensitive; browsers do not);
    /// fields are separated by one space (asctime's day takes two digits or a space and one).
    /// `now` places an RFC 850 date's two-digit year: a year more than 50 years ahead is the last
    /// one in the past that ends in the same two digits.
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        var fields = text.split(separator: " ", omittingEmptySubsequences: false)
        // asctime pads a one-digit day with a space: `Nov  6`.
        if fields.count == 6, fields[2].isEmpty, fields[3].count == 1 { fields.remove(at: 2) }
        guard !fields.contains(where: \.isEmpty) else { return nil }
        switch fields.count {
        case 6:  // Sun, 06 Nov 1994 08:49:37 GMT
            guard fields[0].hasSuffix(","), isGMT(fields[5]), fields[3].count == 4, let year = Int32(fields[3]) else { return nil }
            return date(day: fields[1], month: fields[2], year: year, clock: fields[4])
        case 4:  // Sunday, 06-Nov-94 08:49:37 GMT
            guard fields[0].hasSuffix(","), isGMT(fields[3]) else { return nil }
            let parts = fields[1].split(separator: "-")
            guard parts.count == 3, parts[2].count == 2, let twoDigits = Int32(parts[2]) else { return nil }
            var year = Int32(currentYear(now) / 100 * 100) + twoDigits
            if year > Int32(currentYear(now)) + 50 { year -= 100 }
            return date(day: parts[0], month: parts[1], year: year, clock: fields[2])
        case 5:  // Sun Nov  6 08:49:37 1994
            guard fields[4].count == 4, let year = Int32(fields[4]) else { return nil }
            return date(day: fields[2], month: fields[1], year: year, clock: fields[3])
        default:
            return nil
        }
    }

    private static func isGMT(_ text: Substring) -> Bool { text.lowercased() == "gmt" }

    private static func date(day: Substring, month: Substring, year: Int32, clock: Substring) -> Date? {
        guard day.count <= 2, let day = Int32(day), (1...31).contains(day), let month = months.firstIndex(where: { $0.caseInsensitiveEquals(String(month)) }) else { return nil }
        let time = clock.split(separator: ":")
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }) else { return nil }
        guard let hour = Int32(time[0]), let minute = Int32(time[1]), let second = Int32(time[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), year >= 1900
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static func currentYear(_ now: Date) -> Int {
        let interval = now.timeIntervalSince1970
        guard writableSeconds.contains(interval) else { return interval > 0 ? 9999 : 1900 }
        var seconds = time_t(interval.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return Int(parts.tm_year) + 1900
    }
}
