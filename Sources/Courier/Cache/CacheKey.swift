import Crypto
import Foundation

/// Where a response is cached: a SHA-256 of the request (method, URL without query, canonical URL
/// and body parameters) and of the auth scope, so one user never receives another's data.
///
/// On disk an entry is `<scope>/<path digest>/<digest>.apicache` under the cache directory: a
/// user's entries go with one directory on logout, a path's entries with another on invalidation.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The auth scope: `public` when signed out (and in a shared cache), else a digest of the
    /// user's identity.
    public let scope: String
    /// The entry's file, relative to the cache directory: `<scope>/<path digest>/<digest>.apicache`.
    package let relativePath: String

    /// Creates a key from its parts.
    package init(digest: String, scope: String, pathDigest: String) {
        self.scope = scope
        relativePath = scope + "/" + pathDigest + "/" + digest + Self.fileExtension
    }

    /// A key whose path is written in one pass, straight from the digests' bytes.
    private init(scope: String, pathHash: UInt64, digest: UnsafeRawBufferPointer) {
        self.scope = scope
        var scope = scope
        let suffix: StaticString = ".apicache"
        let length = scope.utf8.count + 1 + 16 + 1 + digest.count * 2 + suffix.utf8CodeUnitCount
        relativePath = scope.withUTF8 { scopeBytes in
            String(unsafeUninitializedCapacity: length) { output in
                guard let start = output.baseAddress else { return 0 }
                var cursor = start
                func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
                for byte in scopeBytes {
                    cursor.pointee = byte
                    cursor += 1
                }
                cursor.pointee = UInt8(ascii: "/")
                cursor += 1
                var hash = pathHash
                for _ in 0..<8 {
                    let byte = UInt8(truncatingIfNeeded: hash >> 56)
                    cursor[0] = hex(byte >> 4)
                    cursor[1] = hex(byte & 0x0F)
                    cursor += 2
                    hash <<= 8
                }
                cursor.pointee = UInt8(ascii: "/")
                cursor += 1
                for byte in digest {
                    cursor[0] = hex(byte >> 4)
                    cursor[1] = hex(byte & 0x0F)
                    cursor += 2
                }
                suffix.withUTF8Buffer { bytes in
                    for byte in bytes {
                        cursor.pointee = byte
                        cursor += 1
                    }
                }
                return cursor - start
            }
        }
    }

    /// The SHA-256 of the request and scope, in lowercase hex (64 characters).
    package var digest: String {
        let name = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")).map { relativePath.utf8.index(after: $0) } ?? relativePath.startIndex
        return String(relativePath[name...].dropLast(Self.fileExtension.utf8.count))
    }

    /// A digest of the method-independent URL without query: the entries a write to that path
    /// invalidates.
    package var pathDigest: String {
        let parts = relativePath.split(separator: "/")
        return parts.count == 3 ? String(parts[1]) : ""
    }

    /// The entry's file path relative to the cache directory.
    public var description: String { relativePath }

    /// The entry's name in a ``CacheStore``: `<scope>/<path digest>/<digest>.apicache`, at most
    /// a few hundred characters of ASCII. Every entry of a scope, or of a path in a scope, has
    /// the names that begin with `<scope>/`, or `<scope>/<path digest>/`.
    public var name: String { relativePath }

    /// The scope of requests sent without credentials.
    package static let publicScope = "public"

    private static let fileExtension = ".apicache"

    /// The key for `method` and `url` with the query parameters canonicalised, before its digest;
    /// `body` adds the body's canonical form.
    static func draft(
        method: HTTPMethod, url: String, query: Parameters, scope: String, body: (inout CanonicalHasher) -> Void
    ) -> Draft {
        drafts(method: method, url: url, query: query, scope: scope, fallbackScope: nil, body: body).draft
    }

    /// ``draft(method:url:query:scope:body:)``, and the same request's draft in `fallbackScope`
    /// when one is given, hashing the request once.
    static func drafts(
        method: HTTPMethod, url: String, query: Parameters, scope: String, fallbackScope: String?, body: (inout CanonicalHasher) -> Void
    ) -> (draft: Draft, fallback: Draft?) {
        var hasher = CanonicalHasher()
        hasher.add(string: method.rawValue)
        hasher.add(string: url)
        hasher.add(Parameter.object(query))
        body(&hasher)
        let pathHash = pathHash(of: url)
        let fallback = fallbackScope.map { fallbackScope in
            var other = hasher
            other.add(string: fallbackScope)
            return Draft(canonical: other, scope: fallbackScope, pathHash: pathHash)
        }
        hasher.add(string: scope)
        return (Draft(canonical: hasher, scope: scope, pathHash: pathHash), fallback)
    }

    /// A key before its SHA-256 is computed: the canonical request and the folder its entry would
    /// be in, which is enough to know that nothing is stored for its path (a lookup that misses
    /// there costs no digest).
    struct Draft {
        let canonical: CanonicalHasher
        let scope: String
        let pathHash: UInt64

        /// The folder of the entries of the request's path: `<scope>/<path digest>`.
        var folder: String { scope + "/" + pathDigest }

        /// The digest of the URL's path, as in ``CacheKey/pathDigest``.
        var pathDigest: String { withUnsafeBytes(of: pathHash.bigEndian) { $0.hex } }

        /// The key of one variant of a response with a `Vary`: this key's request and the
        /// selecting header fields (names and value digests, see ``Vary``).
        func variantKey(_ selection: [String: String]) -> CacheKey {
            var canonical = canonical
            canonical.add(tag: 10)
            canonical.add(length: selection.count)
            for (name, value) in selection.sorted(by: { $0.key < $1.key }) {
                canonical.add(string: name)
                canonical.add(string: value)
            }
            return canonical.finalize().withUnsafeBytes { digest in
                CacheKey(scope: scope, pathHash: pathHash, digest: digest)
            }
        }

        /// The key: remembered in `memo` when it was made lately from the same request, else its
        /// SHA-256 computed now (and remembered).
        func key(memo: Locked<KeyMemo>) -> CacheKey {
            guard let bytes = canonical.shortInput else { return key() }
            let input = KeyMemo.Input(bytes: bytes)
            if let known = memo.withLock({ $0[input] }) { return known }
            let made = key()
            memo.withLock { $0.remember(made, for: input) }
            return made
        }

        /// The key, its SHA-256 computed now.
        func key() -> CacheKey {
            canonical.finalize().withUnsafeBytes { digest in
                CacheKey(scope: scope, pathHash: pathHash, digest: digest)
            }
        }
    }

    /// A digest of a URL without its query (the bytes before any `?`): 16 hex characters of
    /// FNV-1a. It only groups entries for invalidation (a collision removes a few more entries),
    /// so it need not be cryptographic.
    static func pathDigest(of url: String) -> String {
        withUnsafeBytes(of: pathHash(of: url).bigEndian) { $0.hex }
    }

    private static func pathHash(of url: String) -> UInt64 {
        var url = url
        return url.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                if byte == UInt8(ascii: "?") { break }
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            return hash
        }
    }
}

extension String {
    /// The text before `?` and the query after it.
    var splittingQuery: (base: String, query: String?) {
        guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return (self, nil) }
        return (String(self[..<mark]), String(self[utf8.index(after: mark)...]))
    }
}
