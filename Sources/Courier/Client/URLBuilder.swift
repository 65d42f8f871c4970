import Foundation

/// Builds request URLs from a base URL, an API path, a request path and query parameters.
///
/// - Exactly one `/` joins the parts, whatever slashes they start or end with; a trailing slash on
///   the path is kept (`"users/"` stays `…/users/`).
/// - A path that starts with `http://` or `https://` is used instead of the base URL and API path.
/// - The API path and path are percent-encoded where they hold characters a path cannot (spaces,
///   non-ASCII, a stray `%`); valid `%XX` escapes are kept, so encoded input is not encoded twice.
/// - A `?query` in the path is kept, and query parameters are appended after it.
enum URLBuilder {
    static func url(baseURL: URL, apiPath: String, path: String, query: Parameters) throws(CourierError) -> URL {
        var pathPart = Substring(path)
        if let hash = pathPart.firstIndex(of: "#") { pathPart = pathPart[..<hash] }
        var queryParts: [String] = []
        if let mark = pathPart.firstIndex(of: "?") {
            let existing = pathPart[pathPart.index(after: mark)...]
            if !existing.isEmpty { queryParts.append(PercentEncoding.encodeQuery(String(existing))) }
            pathPart = pathPart[..<mark]
        }
        var text: String
        let lowered = pathPart.prefix(8).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let afterScheme = pathPart.range(of: "://")!.upperBound
            let slash = pathPart[afterScheme...].firstIndex(of: "/") ?? pathPart.endIndex
            text = String(pathPart[..<slash]) + PercentEncoding.encodePath(String(pathPart[slash...]))
        } else if pathPart.contains("://") {
            throw CourierError(.invalidURL, "The path \"\(path)\" names a scheme other than http or https.")
        } else {
            try validate(baseURL, what: "The base URL")
            var base = baseURL.absoluteString
            if let cut = base.firstIndex(where: { $0 == "?" || $0 == "#" }) { base = String(base[..<cut]) }
            let parts = [
                String(base.droppingTrailing("/")),
                PercentEncoding.encodePath(String(apiPath.droppingLeading("/").droppingTrailing("/"))),
                PercentEncoding.encodePath(String(pathPart.droppingLeading("/"))),
            ]
            text = parts.filter { !$0.isEmpty }.joined(separator: "/")
        }
        do {
            let encoded = try QueryStringEncoder.encode(query)
            if !encoded.isEmpty { queryParts.append(encoded) }
        } catch {
            throw CourierError(.encodingFailed, "The query parameters cannot be encoded: \(error)", underlyingError: error)
        }
        if !queryParts.isEmpty { text += "?" + queryParts.joined(separator: "&") }
        guard let url = URL(string: text) else {
            throw CourierError(.invalidURL, "\"\(text)\" is not a valid URL.")
        }
        try validate(url, what: "The URL")
        return url
    }

    private static func validate(_ url: URL, what: String) throws(CourierError) {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw CourierError(.invalidURL, "\(what) \"\(url.absoluteString)\" is not an absolute http or https URL with a host.", url: url)
        }
    }
}

extension StringProtocol {
    func droppingLeading(_ character: Character) -> SubSequence {
        self[(firstIndex { $0 != character } ?? endIndex)...]
    }

    func droppingTrailing(_ character: Character) -> SubSequence {
        guard let last = lastIndex(where: { $0 != character }) else { return self[endIndex...] }
        return self[...last]
    }
}
