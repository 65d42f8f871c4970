import Courier
import Crypto
import Foundation
import Hummingbird

/// `ETag` / `Last-Modified` for GET responses, and `304 Not Modified` when the request's
/// `If-None-Match` or `If-Modified-Since` says the client's copy is current.
enum ConditionalResponse {
    /// Answers `request` with `body`, or with a bodiless 304 when the client's copy is current.
    /// The entity tag is a digest of the body; `lastModified` (whole seconds) is sent when given.
    static func make(
        _ request: Request, body: ByteBuffer, contentType: String, lastModified: Date?, cacheControl: String? = nil
    ) -> Response {
        let etag = etag(of: body)
        var headers: HTTPFields = [.contentType: contentType, .eTag: etag]
        if let lastModified { headers[.lastModified] = HTTPDate.format(lastModified) }
        if let cacheControl { headers[.cacheControl] = cacheControl }
        if isCurrent(request, etag: etag, lastModified: lastModified) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// The entity tag of a body: a digest of its bytes, quoted (a strong tag).
    static func etag(of body: ByteBuffer) -> String {
        "\"" + SHA256.hash(data: Data(buffer: body)).prefix(12).hex + "\""
    }

    /// Whether a change may go ahead under the request's `If-Match` (RFC 9110 §13.1.1): no
    /// header, `*`, or a list holding `etag` (strong comparison, so a weak tag never matches).
    static func matches(_ request: Request, etag: String) -> Bool {
        guard let match = request.headers[.ifMatch] else { return true }
        return match.split(separator: ",").contains {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag
        }
    }

    /// `If-None-Match` decides when present (RFC 9110 §13.2.2); else `If-Modified-Since`.
    static func isCurrent(_ request: Request, etag: String, lastModified: Date?) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            return match == "*" || match.split(separator: ",").contains {
                let tag = $0.trimmingCharacters(in: .whitespaces)
                return tag == etag || tag == "W/" + etag
            }
        }
        if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse), let lastModified {
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}

/// The IMF-fixdate form of HTTP dates: `Sun, 06 Nov 1994 08:49:37 GMT` (written and read by hand:
/// a `DateFormatter` per response costs more than the rest of a small GET).
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int32(fields[1]),
              let month = months.firstIndex(of: String(fields[2])), let year = Int32(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = clock[0]
        parts.tm_min = clock[1]
        parts.tm_sec = clock[2]
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
