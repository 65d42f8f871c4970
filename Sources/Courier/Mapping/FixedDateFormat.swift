import Foundation

/// Parses dates in a fixed pattern such as `yyyy/MM/dd HH:mm:ss` without `DateFormatter` (which
/// costs tens of microseconds a call). Tokens: `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss`, `SSS`; any
/// other character must appear as it is, letters quoted as `DateFormatter` quotes them (`'T'`).
package struct FixedDateFormat: Sendable, Hashable {
    enum Token: Hashable {
        case year, month, day, hour, minute, second, millisecond
        case literal(UInt8)

        var width: Int {
            switch self {
            case .year: 4
            case .millisecond: 3
            case .literal: 1
            default: 2
            }
        }
    }

    let tokens: [Token]
    /// The pattern it was made from.
    package let pattern: String

    /// A format for `pattern`, or `nil` when the pattern uses anything but the supported tokens,
    /// non-letter literals and quoted text (`'T'`).
    package init?(_ pattern: String) {
        let bytes = Array(pattern.utf8)
        var tokens: [Token] = []
        var index = 0
        let table: [(String, Token)] = [("yyyy", .year), ("MM", .month), ("dd", .day), ("HH", .hour), ("mm", .minute), ("ss", .second), ("SSS", .millisecond)]
        outer: while index < bytes.count {
            for (text, token) in table where bytes[index...].starts(with: text.utf8) {
                tokens.append(token)
                index += text.utf8.count
                continue outer
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                guard let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "'")), close > index + 1 else { return nil }
                tokens += bytes[(index + 1)..<close].map { .literal($0) }
                index = close + 1
                continue
            }
            if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) { return nil }
            tokens.append(.literal(byte))
            index += 1
        }
        self.tokens = tokens
        self.pattern = pattern
    }

    /// The date `text` names in `timeZone`, or `nil` when it does not match the pattern or names no
    /// real date.
    package func date(from text: String, timeZone: TimeZone) -> Date? {
        var fields = (year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0)
        var utf8 = text.utf8.makeIterator()
        for token in tokens {
            if case .literal(let expected) = token {
                guard utf8.next() == expected else { return nil }
                continue
            }
            var value = 0
            for _ in 0..<token.width {
                guard let byte = utf8.next(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            switch token {
            case .year: fields.year = value
            case .month: fields.month = value
            case .day: fields.day = value
            case .hour: fields.hour = value
            case .minute: fields.minute = value
            case .second: fields.second = value
            case .millisecond: fields.millisecond = value
            case .literal: break
            }
        }
        guard utf8.next() == nil,
              (1...12).contains(fields.month), (1...Self.daysIn(fields.month, of: fields.year)).contains(fields.day),
              fields.hour < 24, fields.minute < 60, fields.second < 60
        else { return nil }
        let days = Self.daysSinceEpoch(year: fields.year, month: fields.month, day: fields.day)
        let local = Double((days * 86_400 + fields.hour * 3_600 + fields.minute * 60 + fields.second) * 1_000 + fields.millisecond) / 1_000
        let guess = Date(timeIntervalSince1970: local)
        return Date(timeIntervalSince1970: local - Double(timeZone.secondsFromGMT(for: guess)))
    }

    /// The widest span of seconds from 1970 a date is written for (about 31,700 years either
    /// way): well inside what whole milliseconds in an `Int` can hold.
    package static let writableSeconds: ClosedRange<Double> = -1e12...1e12

    /// `date` written in the pattern, in `timeZone`; `nil` for a date outside
    /// ``writableSeconds`` (an infinite or NaN interval among them), which has no such text.
    package func string(from date: Date, timeZone: TimeZone) -> String? {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        guard Self.writableSeconds.contains(local) else { return nil }  // NaN is in no range
        let totalMilliseconds = Int((local * 1_000).rounded())
        let whole = Int((Double(totalMilliseconds) / 1_000).rounded(.down))
        let millisecond = totalMilliseconds - whole * 1_000
        let days = Int((Double(whole) / 86_400).rounded(.down))
        let seconds = whole - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        // Digits written as bytes: building the text from `String(value)` pieces cost several
        // allocations a field.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        func pad(_ value: Int, _ width: Int) {
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for an Int's 19 digits
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            var rest = value.magnitude
            var count = 0
            withUnsafeMutableBytes(of: &digits) { digits in
                repeat {
                    digits[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                    count += 1
                } while rest > 0
                for _ in count..<max(count, width) { bytes.append(UInt8(ascii: "0")) }
                for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
            }
        }
        for token in tokens {
            switch token {
            case .year: pad(year, 4)
            case .month: pad(month, 2)
            case .day: pad(day, 2)
            case .hour: pad(seconds / 3_600, 2)
            case .minute: pad(seconds / 60 % 60, 2)
            case .second: pad(seconds % 60, 2)
            case .millisecond: pad(millisecond, 3)
            case .literal(let byte): bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Year, month and day of a day count from 1970-01-01.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
