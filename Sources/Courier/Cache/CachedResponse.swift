import Foundation

/// A response as the cache stores it: status, header fields, body and when it was stored.
///
/// An entry keeps every header field of the response (RFC 9111 §3.1) except those that never
/// belong in a cache: the hop-by-hop fields of the connection it came on (`Connection` and the
/// fields it names, `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`, `Transfer-Encoding`,
/// `Upgrade`) and cookies (`Set-Cookie`). A client also leaves out the authentication headers it
/// captures (``ClientConfiguration/authenticationHeaders``): credentials never reach the cache's
/// files. An answer from the cache carries the headers that were stored, so pagination links,
/// counts, rate limits and an API's own fields read the same from the cache as from the network.
public struct CachedResponse: Sendable, Hashable {
    /// The HTTP status code of the stored response.
    public var statusCode: Int
    /// The stored header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// The URL that answered.
    public var url: URL
    /// When the response was stored (or last revalidated).
    public var storedAt: Date
    /// For a response with a `Vary`: the selecting header fields of the request that stored it,
    /// each name with a digest of its value (see ``Vary``); empty otherwise.
    var selection: [String: String] = [:]
    /// The entry's `Vary`, read when the cache stores the entry or reads it from disk, so a hit
    /// compares it without parsing it (`nil`: none).
    var vary: Vary?

    /// Creates an entry, keeping every header field of `headers` but the hop-by-hop ones and
    /// cookies.
    public init(statusCode: Int, headers: HTTPHeaders, body: Data, url: URL, storedAt: Date = Date()) {
        self.init(statusCode: statusCode, storing: headers, excluding: [], body: body, url: url, storedAt: storedAt)
    }

    /// Creates an entry, keeping the header fields of `headers` a cache may store, and none named
    /// in `excluded` (case-insensitive).
    init(statusCode: Int, storing headers: HTTPHeaders, excluding excluded: [String], body: Data, url: URL, storedAt: Date = Date()) {
        self.statusCode = statusCode
        self.headers = Self.storable(headers, excluding: excluded)
        self.body = body
        self.url = url
        self.storedAt = storedAt
    }

    /// An entry with exactly the fields `storedHeaders` (already filtered when first stored).
    init(statusCode: Int, storedHeaders: HTTPHeaders, body: Data, url: URL, storedAt: Date) {
        self.statusCode = statusCode
        headers = storedHeaders
        self.body = body
        self.url = url
        self.storedAt = storedAt
    }

    /// The fields of `headers` a cache may keep: not hop-by-hop, not a cookie, not in `excluded`.
    static func storable(_ headers: HTTPHeaders, excluding excluded: [String]) -> HTTPHeaders {
        let named = headers["Connection"].map { $0.split(separator: ",").map { String($0.trimmingBlanks) } } ?? []
        var kept = HTTPHeaders()
        kept.reserveCapacity(headers.count)
        for field in headers {
            let name = field.name
            guard !neverStored.contains(where: { $0.caseInsensitiveEquals(name) }),
                  !named.contains(where: { $0.caseInsensitiveEquals(name) }),
                  !excluded.contains(where: { $0.caseInsensitiveEquals(name) })
            else { continue }
            kept.add(name: name, value: field.value)
        }
        return kept
    }

    /// Fields no entry keeps: the connection's own (RFC 9110 §7.6.1), and cookies.
    private static let neverStored = [
        "Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Set-Cookie", "Set-Cookie2",
    ]

    /// The entity tag, for `If-None-Match`.
    var etag: String? { headers["ETag"] }
    /// The last modification date as sent, for `If-Modified-Since`.
    var lastModified: String? { headers["Last-Modified"] }

    /// The `max-age` of `Cache-Control`, in seconds.
    var maxAge: TimeInterval? {
        CacheControl(headers["Cache-Control"]).maxAge
    }

    /// The bytes this entry takes in the memory store: the body, its header fields, and a little
    /// for the entry itself.
    var cost: Int { body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 } + 128 }
}
