import Foundation

/// Builds request URLs from a base URL, an API path, a request path and query parameters.
///
/// - Exactly one `/` joins the parts, whatever slashes they start or end with; a trailing slash on
///   the path is kept (`"users/"` stays `…/users/`).
/// - A path that starts with `http://` or `https://` is used instead of the base URL and API path.
/// - The API path and path are percent-encoded where they hold characters a path cannot (spaces,
///   non-ASCII, a stray `%`); valid `%XX` escapes are kept, so encoded input is not encoded twice.
/// - A `?query` in the path is kept, and query parameters are appended after it; a `#fragment` is
///   never sent.
/// - A URL with no path gets `/` (`Request(.get, "")` on `https://example.com` sends `GET /`).
/// - `.` and `..` segments are resolved before sending, as browsers and curl do (`a/../b` → `b`),
///   so both transports send the same path; `..` never climbs above the host.
enum URLBuilder {
    /// The part of a URL that every request on one base URL and API path shares: the base URL
    /// without query, fragment or trailing slashes, joined to the percent-encoded API path. A
    /// client makes its own once. A class: every request reads it, and a copy of a class is one
    /// reference where a copy of the struct was one for each field.
    final class Prefix: Sendable {
        let text: String
        /// Why the base URL cannot be used (not an absolute http or https URL with a host), if so.
        let baseProblem: CourierError?
        /// Whether ``text`` has `.` or `..` segments to resolve.
        let hasDotSegments: Bool
        /// Whether ``text`` has a path (a `/` after its host), so that a URL on it needs no `/`
        /// added for an empty path.
        let hasPath: Bool

        init(baseURL: URL, apiPath: String) {
            do throws(CourierError) {
                try URLBuilder.validate(baseURL, what: "The base URL")
                baseProblem = nil
            } catch {
                baseProblem = error
            }
            var base = baseURL.absoluteString
            if let cut = base.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
                base = String(base[..<cut])
            }
            let joined = [
                String(Substring(base).trimmingSlashes(leading: false)),
                PercentEncoding.encodePath(String(Substring(apiPath).trimmingSlashes(leading: true))),
            ].filter { !$0.isEmpty }.joined(separator: "/")
            text = joined
            hasDotSegments = URLBuilder.resolvingDotSegments(in: joined) != joined
            hasPath = URLBuilder.lacksPath(joined) == false
        }
    }

    /// A request's URL before the query parameters are added: the prefix and the path (with any
    /// query the path brought), and whether the path brought its own scheme and host.
    struct Base: Sendable {
        let text: String
        let ownBase: Bool
        let hasQuery: Bool
    }

    static func url(prefix: Prefix, path: String, query: Parameters) throws(CourierError) -> URL {
        try url(base(prefix: prefix, path: path), prefix: prefix, query: query)
    }

    /// The URL of `base` with `query` added, parsed and checked.
    static func url(_ base: Base, prefix: Prefix, query: Parameters) throws(CourierError) -> URL {
        if !base.ownBase, let problem = prefix.baseProblem { throw problem }
        var text = base.text
        if !query.isEmpty {
            // Built as bytes, read as a string once: appending to a string costs more.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(base.text.utf8.count + 1 + 32 * query.count)
            bytes.append(contentsOf: base.text.utf8)
            bytes.append(base.hasQuery ? UInt8(ascii: "&") : UInt8(ascii: "?"))
            let start = bytes.count
            do {
                try QueryStringEncoder.append(query, to: &bytes)
            } catch {
                throw CourierError(.encodingFailed, "The query parameters cannot be encoded: \(error)", underlyingError: error)
            }
            // Parameters that encode to nothing (an empty array) add no separator either.
            if bytes.count > start { text = String(decoding: bytes, as: UTF8.self) }
        }
        guard let url = URL(string: text) else {
            throw CourierError(.invalidURL, "\"\(text)\" is not a valid URL.")
        }
        // A URL on the prefix has the prefix's scheme and host, checked once when it was made.
        if base.ownBase { try validate(url, what: "The URL") }
        return url
    }

    /// The URL before its query parameters (what the cache's keys are made of: a base URL that is
    /// not http(s) fails when the request is sent, so this does not check it).
    static func base(prefix: Prefix, path: String) throws(CourierError) -> Base {
        var pathPart = Substring(path)
        // Searches are on UTF-8 bytes: the separators are ASCII, and Character searches cost
        // grapheme breaking on every request.
        if let hash = Self.firstIndex(of: UInt8(ascii: "#"), in: pathPart) { pathPart = pathPart[..<hash] }
        var ownQuery: String?
        if let mark = Self.firstIndex(of: UInt8(ascii: "?"), in: pathPart) {
            let existing = pathPart[pathPart.utf8.index(after: mark)...]
            if !existing.isEmpty { ownQuery = PercentEncoding.encodeQuery(String(existing)) }
            pathPart = pathPart[..<mark]
        }
        var text: String
        // Whether `text` may have `.` or `..` segments: a path with no `.` adds none to the prefix.
        var mayHaveDotSegments = true
        // Whether `text` may lack a path: a relative path on a prefix that has one cannot.
        var mayLackPath = true
        let schemeEnd = Self.schemeSeparator(in: pathPart)
        let lowered = schemeEnd == nil ? "" : pathPart.prefix(8).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let schemeEnd {
            let afterScheme = schemeEnd.upperBound
            let slash = pathPart[afterScheme...].utf8.firstIndex(of: UInt8(ascii: "/")) ?? pathPart.endIndex
            text = String(pathPart[..<slash]) + PercentEncoding.encodePath(String(pathPart[slash...]))
        } else if schemeEnd != nil {
            throw CourierError(.invalidURL, "The path \"\(path)\" names a scheme other than http or https.")
        } else {
            let tail = PercentEncoding.encodePath(String(pathPart.trimmingSlashes(leading: true, trailing: false)))
            // Built as bytes, read as a string once: appending to a string costs more.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(prefix.text.utf8.count + 1 + tail.utf8.count)
            bytes.append(contentsOf: prefix.text.utf8)
            if !prefix.text.isEmpty, !tail.isEmpty { bytes.append(UInt8(ascii: "/")) }
            bytes.append(contentsOf: tail.utf8)
            text = String(decoding: bytes, as: UTF8.self)
            mayHaveDotSegments = prefix.hasDotSegments || tail.utf8.contains(UInt8(ascii: "."))
            mayLackPath = !prefix.hasPath && tail.isEmpty
        }
        if mayHaveDotSegments { text = Self.resolvingDotSegments(in: text) }
        // An http(s) URL with no path means `/` (RFC 3986 §6.2.3): sent and recorded as `/`, so a
        // request for a site's root is the same whether its path was "" or "/".
        if mayLackPath, Self.lacksPath(text) { text += "/" }
        if let ownQuery {
            text += "?"
            text += ownQuery
        }
        return Base(text: text, ownBase: schemeEnd != nil, hasQuery: ownQuery != nil)
    }

    /// The URL text with the `.` and `..` segments of its path resolved (RFC 3986, 5.2.4), as a
    /// browser or curl would before sending: both transports then send the same path
    /// (async-http-client would send the segments as they are), and `..` never climbs above the
    /// host. Text without such segments is returned as it is.
    static func resolvingDotSegments(in text: String) -> String {
        let utf8 = text.utf8
        guard let separator = schemeSeparator(in: Substring(text)) else { return text }
        let pathStart = utf8[separator.upperBound...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
        let path = text[pathStart...]
        // Most paths have no segment that starts with a dot: one pass over the bytes, no array.
        var previous: UInt8 = 0
        var mayHaveDotSegment = false
        for byte in path.utf8 {
            if previous == UInt8(ascii: "/"), byte == UInt8(ascii: ".") {
                mayHaveDotSegment = true
                break
            }
            previous = byte
        }
        guard mayHaveDotSegment, path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else {
            return text
        }
        var kept: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { kept.append("") }
            case "..":
                if !kept.isEmpty { kept.removeLast() }
                if isLast { kept.append("") }
            default:
                kept.append(segment)
            }
        }
        return String(text[..<pathStart]) + "/" + kept.joined(separator: "/")
    }

    /// Whether `text`, a URL, has no `/` after its scheme's `://` (no path at all).
    static func lacksPath(_ text: String) -> Bool {
        guard let schemeEnd = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return !text.utf8[schemeEnd...].dropFirst(3).contains(UInt8(ascii: "/"))
    }

    /// The index of the first `byte` in `text`, searched in the string's own storage when it has
    /// one: a search of a substring's UTF-8 view, index by index, cost more than the rest of a
    /// short path's handling.
    static func firstIndex(of byte: UInt8, in text: Substring) -> Substring.Index? {
        let utf8 = text.utf8
        guard let offset = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) else {
            return utf8.firstIndex(of: byte)
        }
        return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// The range of the first `://`, found byte by byte (the generic `firstRange(of:)` costs
    /// microseconds per call).
    static func schemeSeparator(in text: Substring) -> Range<Substring.Index>? {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while let colon = firstIndex(of: UInt8(ascii: ":"), in: text[index...]) {
            let first = utf8.index(after: colon)
            guard first < utf8.endIndex else { return nil }
            let second = utf8.index(after: first)
            if second < utf8.endIndex, utf8[first] == UInt8(ascii: "/"), utf8[second] == UInt8(ascii: "/") {
                return colon..<utf8.index(after: second)
            }
            index = first
        }
        return nil
    }

    static func validate(_ url: URL, what: String) throws(CourierError) {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw CourierError(.invalidURL, "\(what) \"\(url.absoluteString)\" is not an absolute http or https URL with a host.", url: url)
        }
    }
}

extension Substring {
    /// Without the `/` bytes at the end (and at the start when `leading`).
    func trimmingSlashes(leading: Bool, trailing: Bool = true) -> Substring {
        let slash = UInt8(ascii: "/")
        var start = utf8.startIndex
        var end = utf8.endIndex
        if leading { while start < end, utf8[start] == slash { start = utf8.index(after: start) } }
        if trailing {
            while end > start, utf8[utf8.index(before: end)] == slash { end = utf8.index(before: end) }
        }
        return self[start..<end]
    }
}
