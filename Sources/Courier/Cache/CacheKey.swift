import Crypto
import Foundation

/// Where a response is cached: a SHA-256 of the request (method, URL without query, canonical URL
/// and body parameters) and of the auth scope, so one user never receives another's data.
///
/// On disk an entry is `<scope>/<path digest>/<digest>.apicache` under the cache directory: a
/// user's entries go with one directory on logout, a path's entries with another on invalidation.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The SHA-256 of the request and scope, in lowercase hex (64 characters).
    public let digest: String
    /// The auth scope: `public` when signed out, else a digest of the user's identity.
    public let scope: String
    /// A digest of the method-independent URL without query: the entries a write to that path
    /// invalidates.
    public let pathDigest: String

    /// Creates a key from its parts.
    public init(digest: String, scope: String, pathDigest: String) {
        self.digest = digest
        self.scope = scope
        self.pathDigest = pathDigest
    }

    /// The entry's file, relative to the cache directory.
    public var relativePath: String { "\(scope)/\(pathDigest)/\(digest).apicache" }

    public var description: String { relativePath }

    /// The scope of requests sent without credentials.
    public static let publicScope = "public"

    /// A key for `method` and `url` without query, with the query parameters canonicalised and the
    /// body's canonical digest.
    static func make(method: HTTPMethod, url: URL, query: Parameters, bodyDigest: String, scope: String) -> CacheKey {
        let (base, _) = url.absoluteString.splittingQuery
        var hasher = CanonicalHasher()
        hasher.add(string: method.rawValue)
        hasher.add(string: url.absoluteString)
        hasher.add(.object(query))
        hasher.add(string: bodyDigest)
        hasher.add(string: scope)
        return CacheKey(digest: hasher.hex(), scope: scope, pathDigest: pathDigest(of: base))
    }

    /// The digest of a URL without its query (16 hex characters).
    static func pathDigest(of base: String) -> String {
        String(SHA256.hash(data: Data(base.utf8)).hex.prefix(16))
    }
}

extension String {
    /// The text before `?` and the query after it.
    var splittingQuery: (base: String, query: String?) {
        guard let mark = firstIndex(of: "?") else { return (self, nil) }
        return (String(self[..<mark]), String(self[index(after: mark)...]))
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal.
    var hex: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)
