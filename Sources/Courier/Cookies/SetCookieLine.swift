import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `Set-Cookie` field value read as RFC 6265bis §5.6 says a user agent reads it: the name and
/// value, and the last valid value of each attribute. Reading never fails loudly: a line the RFC
/// says to ignore is `nil`, an attribute it says to ignore is left out.
struct SetCookieLine: Sendable, Equatable {
    var name: String
    var value: String
    /// The last valid `Expires`, already capped at ``CookieJar/maximumLifetime`` from `now`.
    var expires: Date?
    /// The last valid `Max-Age`, in seconds (zero or less: already expired).
    var maxAge: Int64?
    /// The last non-empty `Domain`, without a leading dot, in lower case.
    var domain: String?
    /// The last `Path`; an empty string when that one asked for the default path.
    var path: String?
    var secure = false
    var httpOnly = false
    /// The last `SameSite`, as `Strict`, `Lax` or `None`; `Default` for any other value.
    var sameSite: String?

    /// The largest name and value together, and the largest attribute value, in bytes.
    static let maximumNameAndValue = 4096
    static let maximumAttributeValue = 1024

    /// Reads `line`, or `nil` when the RFC says to ignore it: a control character other than a tab,
    /// an empty name with an empty value, or a name and value over 4096 bytes.
    init?(_ line: String, now: Date) {
        let bytes = Array(line.utf8)
        for byte in bytes where (byte < 0x20 && byte != 0x09) || byte == 0x7F { return nil }
        // The name-value pair ends at the first ';'.
        let pairEnd = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        let pair = bytes[..<pairEnd]
        if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
            name = Self.text(Self.trimmed(pair[..<equals]))
            value = Self.text(Self.trimmed(pair[(equals + 1)...]))
        } else {
            name = ""
            value = Self.text(Self.trimmed(pair))
        }
        guard !(name.isEmpty && value.isEmpty), name.utf8.count + value.utf8.count <= Self.maximumNameAndValue else { return nil }
        guard pairEnd < bytes.count else { return }
        for attribute in bytes[(pairEnd + 1)...].split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
            let attributeName: ArraySlice<UInt8>
            let attributeValue: ArraySlice<UInt8>
            if let equals = attribute.firstIndex(of: UInt8(ascii: "=")) {
                attributeName = Self.trimmed(attribute[..<equals])
                attributeValue = Self.trimmed(attribute[(equals + 1)...])
            } else {
                attributeName = Self.trimmed(attribute)
                attributeValue = []
            }
            if attributeValue.count <= Self.maximumAttributeValue {
                read(attribute: attributeName, value: attributeValue, now: now)
            }
        }
    }

    private mutating func read(attribute: ArraySlice<UInt8>, value: ArraySlice<UInt8>, now: Date) {
        switch Self.lowercased(attribute) {
        case "expires":
            if let date = CookieDate.parse(value) {
                expires = min(date, now.addingTimeInterval(CookieJar.maximumLifetime))
            }
        case "max-age":
            guard let first = value.first, first == UInt8(ascii: "-") || (0x30...0x39).contains(first) else { return }
            let digits = first == UInt8(ascii: "-") ? value.dropFirst() : value
            guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return }
            // Saturating: a number of any length is a lifetime past the cap.
            var seconds: Int64 = 0
            for digit in digits {
                seconds = seconds > Int64(CookieJar.maximumLifetime) ? seconds : seconds * 10 + Int64(digit - 0x30)
            }
            maxAge = first == UInt8(ascii: "-") ? -seconds : seconds
        case "domain":
            guard !value.isEmpty else { return }
            let domain = value.first == UInt8(ascii: ".") ? value.dropFirst() : value
            self.domain = Self.lowercased(domain)
        case "path":
            path = value.first == UInt8(ascii: "/") ? Self.text(value) : ""
        case "secure":
            secure = true
        case "httponly":
            httpOnly = true
        case "samesite":
            switch Self.lowercased(value) {
            case "strict": sameSite = "Strict"
            case "lax": sameSite = "Lax"
            case "none": sameSite = "None"
            default: sameSite = "Default"
            }
        default:
            break
        }
    }

    /// The field values of `Set-Cookie` in `headers` as separate lines. URLSession gives a response's
    /// `Set-Cookie` fields as one value joined with `", "`; async-http-client gives them apart. So
    /// that both transports read the same cookies, every transport's values are joined that way and
    /// split again at each `", "`, except the one in an `Expires` date (`Expires=Sun, 06 Nov…`): a
    /// value or attribute holding `", "`, which RFC 6265's grammar forbids a server to send, reads as
    /// two lines everywhere.
    static func lines(in headers: HTTPHeaders) -> [String] {
        guard headers.containsField(named: "Set-Cookie") else { return [] }
        let values = headers.values(for: "Set-Cookie")
        guard !values.isEmpty else { return [] }
        let joined = Array(values.joined(separator: ", ").utf8)
        var lines: [String] = []
        var start = 0
        var attributeStart = 0
        var index = 0
        while index < joined.count {
            switch joined[index] {
            case UInt8(ascii: ";"):
                attributeStart = index + 1
            case UInt8(ascii: ",") where index + 1 < joined.count && joined[index + 1] == UInt8(ascii: " ")
                && !isExpiresDay(joined[attributeStart..<index]):
                lines.append(text(joined[start..<index]))
                start = index + 2
                attributeStart = start
                index = start
                continue
            default:
                break
            }
            index += 1
        }
        lines.append(text(joined[start...]))
        return lines
    }

    /// Whether `attribute` is `Expires=` and a day's name: the comma after it is the date's.
    private static func isExpiresDay(_ attribute: ArraySlice<UInt8>) -> Bool {
        let attribute = trimmed(attribute)
        guard let equals = attribute.firstIndex(of: UInt8(ascii: "=")),
              lowercased(trimmed(attribute[..<equals])) == "expires"
        else { return false }
        let day = trimmed(attribute[(equals + 1)...])
        return !day.isEmpty && day.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    private static func text<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

/// The dates of `Expires`, read as RFC 6265bis §5.1.1 says: tokens between delimiters, taking the
/// first that reads as a time, a day of the month, a month and a year, in any order.
enum CookieDate {
    static func parse(_ value: ArraySlice<UInt8>) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var index = value.startIndex
        while index < value.endIndex {
            while index < value.endIndex, isDelimiter(value[index]) { index += 1 }
            let start = index
            while index < value.endIndex, !isDelimiter(value[index]) { index += 1 }
            guard start < index else { continue }
            let token = value[start..<index]
            if time == nil, let found = readTime(token) {
                time = found
            } else if day == nil, let found = leadingDigits(token, 1...2) {
                day = found
            } else if month == nil, let found = readMonth(token) {
                month = found
            } else if year == nil, let found = leadingDigits(token, 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
              day <= daysIn(month: month, year: year)
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(time.hour)
        parts.tm_min = Int32(time.minute)
        parts.tm_sec = Int32(time.second)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `count` digits at the token's start (and no more), followed by anything that is not a digit.
    private static func leadingDigits(_ token: ArraySlice<UInt8>, _ count: ClosedRange<Int>) -> Int? {
        let digits = token.prefix { isDigit($0) }
        guard count.contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func readTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var rest = token[...]
        for position in 0..<3 {
            let digits = rest.prefix { isDigit($0) }
            guard (1...2).contains(digits.count) else { return nil }
            fields.append(digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(digits.count)
            if position < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            } else if let next = rest.first, isDigit(next) {
                return nil
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }

    private static func readMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let first = token.prefix(3).map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        return months.firstIndex(of: first).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
