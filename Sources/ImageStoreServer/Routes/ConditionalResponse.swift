import Courier
import Crypto
import Foundation
import Hummingbird

/// `ETag` / `Last-Modified` for GET responses, `304 Not Modified` when the request's
/// `If-None-Match` or `If-Modified-Since` says the client's copy is current, and ranges
/// (``RangeSelection``) for the routes that serve them.
enum ConditionalResponse {
    /// Answers `request` with `body`, or with a bodiless 304 when the client's copy is current.
    /// The entity tag is a digest of the body; `lastModified` (whole seconds) is sent when given;
    /// `fields` go with both answers (a 304 carries the representation's current metadata). With
    /// `ranges`, a `Range` under a current `If-Range` is answered with the part it asks (206) or
    /// 416, after the 304 check (RFC 9110 §13.2.2).
    static func make(
        _ request: Request, body: ByteBuffer, contentType: String, lastModified: Date?, cacheControl: String? = nil,
        fields: HTTPFields = [:], ranges: Bool = false
    ) -> Response {
        let etag = etag(of: body)
        var headers: HTTPFields = [.contentType: contentType, .eTag: etag]
        headers.append(contentsOf: fields)
        if let lastModified, let text = HTTPDate.format(lastModified) { headers[.lastModified] = text }
        if let cacheControl { headers[.cacheControl] = cacheControl }
        if isCurrent(request, etag: etag, lastModified: lastModified) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        if ranges {
            let selection = RangeSelection(request, length: body.readableBytes, etag: etag, lastModified: headers[.lastModified])
            return selection.response(body, fields: headers)
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
        if let since = request.headers[.ifModifiedSince].flatMap({ HTTPDate.parse($0) }), let lastModified {
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}
