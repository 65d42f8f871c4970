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
        let etag = "\"" + SHA256.hash(data: Data(buffer: body)).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        var headers: HTTPFields = [.contentType: contentType, .eTag: etag]
        if let lastModified { headers[.lastModified] = HTTPDate.format(lastModified) }
        if let cacheControl { headers[.cacheControl] = cacheControl }
        if isCurrent(request, etag: etag, lastModified: lastModified) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
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

/// The IMF-fixdate form of HTTP dates: `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    static func format(_ date: Date) -> String { formatter().string(from: date) }

    static func parse(_ text: String) -> Date? { formatter().date(from: text) }
}
