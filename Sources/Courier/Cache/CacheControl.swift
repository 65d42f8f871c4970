import Foundation

/// The directives of a request's or a response's `Cache-Control` (RFC 9111 §5.2) the cache acts
/// on, read from every field line of that name.
///
/// - A directive's name is compared case-insensitively; its argument is a token or a quoted
///   string (a quoted string's commas and `=` are part of it, not directives).
/// - Where a directive appears twice, the first one counts (§4.2.1 allows either that or stale).
/// - An age (`max-age`, `min-fresh`, …) is delta-seconds: digits only, at most 2³¹ (§1.2.2). A
///   `max-age` that is not one makes the response stale, as §4.2.1 encourages; another directive
///   whose argument is not one is ignored.
struct CacheControl {
    var noStore = false
    /// `no-cache` with no argument: every use of the response is revalidated.
    var noCache = false
    /// The fields `no-cache="…"` names: the response is used without revalidation, but without them.
    var noCacheFields: [String] = []
    var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for a shared cache only (§5.2.2.8).
    var proxyRevalidate = false
    var isPublic = false
    /// `private`, with or without field names.
    var isPrivate = false
    /// The fields `private="…"` names: a shared cache keeps the response without them (§5.2.2.7).
    var privateFields: [String] = []
    /// `s-maxage`: a shared cache's own `max-age`, which wins over `max-age` there (§5.2.2.10).
    var sMaxAge: TimeInterval?
    var onlyIfCached = false
    var maxAge: TimeInterval?
    /// `max-stale` with no argument accepts any staleness: `.infinity`.
    var maxStale: TimeInterval?
    var minFresh: TimeInterval?
    var staleWhileRevalidate: TimeInterval?
    var staleIfError: TimeInterval?

    /// The directives of one field value, such as `"max-age=60, must-revalidate"`.
    init(_ value: String?) {
        guard let value else { return }
        read(value)
    }

    /// The directives of every `Cache-Control` line of `headers`.
    init(_ headers: HTTPHeaders) {
        for field in headers where field.name.caseInsensitiveEquals("Cache-Control") { read(field.value) }
    }

    private mutating func read(_ value: String) {
        for (name, argument) in Self.directives(in: value) {
            switch name {
            case "no-store": noStore = true
            case "no-cache":
                if let argument {
                    noCacheFields += argument.split(separator: ",").map { String($0.trimmingBlanks) }.filter { !$0.isEmpty }
                } else {
                    noCache = true
                }
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "public": isPublic = true
            case "private":
                isPrivate = true
                if let argument {
                    privateFields += argument.split(separator: ",").map { String($0.trimmingBlanks) }.filter { !$0.isEmpty }
                }
            case "s-maxage": if sMaxAge == nil { sMaxAge = argument.flatMap(Self.deltaSeconds) ?? 0 }
            case "only-if-cached": onlyIfCached = true
            case "max-age": if maxAge == nil { maxAge = argument.flatMap(Self.deltaSeconds) ?? 0 }
            case "max-stale": if maxStale == nil { maxStale = argument.map { Self.deltaSeconds($0) ?? .infinity } ?? .infinity }
            case "min-fresh": if minFresh == nil { minFresh = argument.flatMap(Self.deltaSeconds) }
            case "stale-while-revalidate": if staleWhileRevalidate == nil { staleWhileRevalidate = argument.flatMap(Self.deltaSeconds) }
            case "stale-if-error": if staleIfError == nil { staleIfError = argument.flatMap(Self.deltaSeconds) }
            default: break
            }
        }
    }

    /// A delta-seconds value: one or more ASCII digits, capped at 2³¹ (RFC 9111 §1.2.2); `nil`
    /// for anything else (a sign, a fraction, a letter, a space).
    static func deltaSeconds(_ text: Substring) -> TimeInterval? {
        guard !text.isEmpty else { return nil }
        var value: Double = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = min(value * 10 + Double(byte - UInt8(ascii: "0")), 2_147_483_648)
        }
        return value
    }

    /// The directives of `value`, each lowercased with its argument (a quoted string unquoted);
    /// a directive with a space before or after its `=` has no valid argument.
    static func directives(in value: String) -> [(String, Substring?)] {
        var result: [(String, Substring?)] = []
        var rest = Substring(value)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { break }
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == "," } ?? rest.endIndex
            let rawName = rest[..<nameEnd]
            let name = rawName.trimmingBlanks.lowercased()
            rest = rest[nameEnd...]
            var argument: Substring?
            if rest.first == "=" {
                rest = rest.dropFirst()
                if rest.first == "\"" {
                    // A quoted string: up to the closing quote, a backslash escaping the next character.
                    var text = ""
                    var index = rest.index(after: rest.startIndex)
                    var closed = false
                    while index < rest.endIndex {
                        let character = rest[index]
                        if character == "\\" {
                            index = rest.index(after: index)
                            if index < rest.endIndex { text.append(rest[index]) }
                        } else if character == "\"" {
                            closed = true
                            index = rest.index(after: index)
                            break
                        } else {
                            text.append(character)
                        }
                        if index < rest.endIndex { index = rest.index(after: index) }
                    }
                    rest = rest[index...]
                    argument = closed ? Substring(text) : nil
                    // Whatever follows the closing quote up to the next comma is not part of it.
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    if !rest[..<end].allSatisfy({ $0 == " " || $0 == "\t" }) { argument = nil }
                    rest = rest[end...]
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    let token = rest[..<end]
                    argument = token.hasPrefix(" ") || token.hasPrefix("\t") ? nil : Self.trailingSpaceTrimmed(token)
                    rest = rest[end...]
                }
                if rawName.hasSuffix(" ") || rawName.hasSuffix("\t") { argument = nil }
            }
            if !name.isEmpty { result.append((name, argument)) }
        }
        return result
    }

    private static func trailingSpaceTrimmed(_ text: Substring) -> Substring {
        var text = text
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
