import Foundation

/// A response as the cache stores it: status, the headers that matter for reuse, the body and when
/// it was stored.
public struct CachedResponse: Sendable, Hashable {
    /// The headers kept with an entry (others are not stored), and the ones a `304` updates: what
    /// the cache decides and revalidates with, and how the body is read.
    package static let storedHeaderNames = ["Content-Type", "ETag", "Last-Modified", "Date", "Cache-Control", "Expires", "Vary"]

    /// The HTTP status code of the stored response.
    public var statusCode: Int
    /// The stored headers (``storedHeaderNames`` only).
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// The URL that answered.
    public var url: URL
    /// When the response was stored (or last revalidated).
    public var storedAt: Date

    /// Creates an entry, keeping only ``storedHeaderNames`` of `headers`.
    public init(statusCode: Int, headers: HTTPHeaders, body: Data, url: URL, storedAt: Date = Date()) {
        var kept = HTTPHeaders()
        for name in Self.storedHeaderNames {
            if let value = headers[name] { kept[name] = value }
        }
        self.statusCode = statusCode
        self.headers = kept
        self.body = body
        self.url = url
        self.storedAt = storedAt
    }

    /// The entity tag, for `If-None-Match`.
    public var etag: String? { headers["ETag"] }
    /// The last modification date as sent, for `If-Modified-Since`.
    public var lastModified: String? { headers["Last-Modified"] }

    /// The `max-age` of `Cache-Control`, in seconds.
    public var maxAge: TimeInterval? {
        CacheControl(headers["Cache-Control"]).maxAge
    }

    /// The bytes this entry takes in the memory store.
    var cost: Int { body.count + 256 }
}
