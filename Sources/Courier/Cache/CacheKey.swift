import Crypto
import Foundation

/// Where a response is cached: a SHA-256 of the request (method, URL without query, canonical URL
/// and body parameters) and of the auth scope, so one user never receives another's data.
///
/// On disk an entry is `<scope>/<path digest>/<digest>.apicache` under the cache directory: a
/// user's entries go with one directory on logout, a path's entries with another on invalidation.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The SHA-256 of the request and scope, in lowercase hex (64 characters).
    package let digest: String
    /// The auth scope: `public` when signed out, else a digest of the user's identity.
    package let scope: String
    /// A digest of the method-independent URL without query: the entries a write to that path
    /// invalidates.
    package let pathDigest: String
    /// The entry's file, relative to the cache directory.
    package let relativePath: String

    /// Creates a key from its parts.
    package init(digest: String, scope: String, pathDigest: String) {
        self.digest = digest
        self.scope = scope
        self.pathDigest = pathDigest
        // Joined by hand: string interpolation costs several times more on this per-request path.
        var path = String()
        path.reserveCapacity(scope.utf8.count + pathDigest.utf8.count + digest.utf8.count + 11)
        path += scope
        path += "/"
        path += pathDigest
        path += "/"
        path += digest
        path += ".apicache"
        relativePath = path
    }

    /// The entry's file path relative to the cache directory.
    public var description: String { relativePath }

    /// The scope of requests sent without credentials.
    package static let publicScope = "public"

    /// A key for `method` and `url` with the query parameters canonicalised; `body` adds the
    /// body's canonical form to the same digest.
    static func make(
        method: HTTPMethod, url: String, query: Parameters, scope: String, body: (inout CanonicalHasher) -> Void
    ) -> CacheKey {
        var hasher = CanonicalHasher()
        hasher.add(string: method.rawValue)
        hasher.add(string: url)
        hasher.add(Parameter.object(query))
        body(&hasher)
        hasher.add(string: scope)
        return CacheKey(digest: hasher.hex(), scope: scope, pathDigest: pathDigest(of: url))
    }

    /// A digest of a URL without its query (the bytes before any `?`): 16 hex characters of
    /// FNV-1a. It only groups entries for invalidation (a collision removes a few more entries),
    /// so it need not be cryptographic.
    static func pathDigest(of url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            if byte == UInt8(ascii: "?") { break }
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return withUnsafeBytes(of: hash.bigEndian) { $0.hex }
    }
}

extension String {
    /// The text before `?` and the query after it.
    var splittingQuery: (base: String, query: String?) {
        guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return (self, nil) }
        return (String(self[..<mark]), String(self[utf8.index(after: mark)...]))
    }
}
