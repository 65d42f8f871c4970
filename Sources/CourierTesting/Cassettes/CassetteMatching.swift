import Courier
import Foundation

/// How a ``Cassette`` finds the recorded answer to a request.
///
/// By default a request matches a recorded one with the same method and URL, compared as HTTP
/// means them (RFC 3986 §6.2.3, RFC 9110 §4.2.3): scheme and host in any case, a default port the
/// same as none, an empty path the same as `/`, percent-encoding by the bytes it encodes (`%7E` is
/// `~`), and query parameters in any order. Identical requests are answered in the order they were recorded: the first `GET
/// /items` gets the first recorded answer, the second the second.
///
/// ```swift
/// var matching = CassetteMatching.methodAndURL
/// matching.comparesBody = true            // JSON bodies compared by value, key order ignored
/// matching.headers = ["Accept-Language"]
/// matching.comparesHost = false           // recorded against another port or host
/// ```
public struct CassetteMatching: Sendable {
    /// Whether scheme, host and port must match (when `false`, only path and query count).
    public var comparesHost: Bool
    /// Whether bodies must match: JSON bodies by value (key order and spacing ignored), others byte
    /// for byte.
    public var comparesBody: Bool
    /// Headers (any case) whose values must match.
    public var headers: [String]
    /// When every recorded answer to a request has been used, answer the last one again instead of
    /// failing.
    public var repeatsLastAnswer: Bool
    /// A test of your own, run after the others: the request being sent and a recorded one, both
    /// redacted the same way.
    public var custom: (@Sendable (_ request: TransportRequest, _ recorded: TransportRequest) -> Bool)?

    /// Creates a matching rule.
    public init(
        comparesHost: Bool = true, comparesBody: Bool = false, headers: [String] = [], repeatsLastAnswer: Bool = false,
        custom: (@Sendable (_ request: TransportRequest, _ recorded: TransportRequest) -> Bool)? = nil
    ) {
        self.comparesHost = comparesHost
        self.comparesBody = comparesBody
        self.headers = headers
        self.repeatsLastAnswer = repeatsLastAnswer
        self.custom = custom
    }

    /// Method and URL, query parameters in any order.
    public static let methodAndURL = CassetteMatching()

    /// What differs between `request` and `recorded`, in words; empty when they match.
    func differences(between request: TransportRequest, and recorded: TransportRequest) -> [String] {
        var differences: [String] = []
        if request.method != recorded.method {
            differences.append("method: recorded \(recorded.method), asked \(request.method)")
        }
        let asked = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let answered = URLComponents(url: recorded.url, resolvingAgainstBaseURL: false)
        if comparesHost, Self.origin(asked) != Self.origin(answered) {
            differences.append("host: recorded \(Self.origin(answered)), asked \(Self.origin(asked))")
        }
        let askedPath = Self.path(asked), answeredPath = Self.path(answered)
        if Self.decodedBytes(askedPath) != Self.decodedBytes(answeredPath) {
            differences.append("path: recorded \(answeredPath), asked \(askedPath)")
        }
        differences += Self.queryDifferences(asked: Self.query(request.url), recorded: Self.query(recorded.url))
        if comparesBody, !Self.bodiesMatch(request.body ?? Data(), recorded.body ?? Data()) {
            differences.append("body: recorded \(Self.preview(recorded.body)), asked \(Self.preview(request.body))")
        }
        for name in headers where request.headers.values(for: name) != recorded.headers.values(for: name) {
            let was = recorded.headers.values(for: name).joined(separator: ", ")
            let now = request.headers.values(for: name).joined(separator: ", ")
            differences.append("header \(name): recorded \(was.isEmpty ? "(none)" : was), asked \(now.isEmpty ? "(none)" : now)")
        }
        if differences.isEmpty, let custom, !custom(request, recorded) {
            differences.append("the custom matching rule said no")
        }
        return differences
    }

    // MARK: Parts

    /// Scheme and host lowercased, and the port unless it is the scheme's default.
    private static func origin(_ components: URLComponents?) -> String {
        guard let components else { return "" }
        let scheme = components.scheme?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(components.host?.lowercased() ?? "")\(port)"
    }

    /// The path as sent, percent-encoded; an empty one is `/`.
    private static func path(_ components: URLComponents?) -> String {
        let path = components?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The path of `url` as a request line gives it, decoded: what ``Cassette`` looks entries up by.
    static func lookupPath(_ url: URL) -> [UInt8] {
        decodedBytes(path(URLComponents(url: url, resolvingAgainstBaseURL: false)))
    }

    /// The bytes `text` stands for, each `%XX` decoded (a `%` not followed by two hex digits is itself).
    static func decodedBytes(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The query as sorted `name=value` pairs, percent-decoded.
    private static func query(_ url: URL) -> [String] {
        url.queryPairs.map { "\($0.name)=\($0.value)" }.sorted()
    }

    private static func queryDifferences(asked: [String], recorded: [String]) -> [String] {
        guard asked != recorded else { return [] }
        var missing = recorded
        var extra: [String] = []
        for pair in asked {
            if let index = missing.firstIndex(of: pair) { missing.remove(at: index) } else { extra.append(pair) }
        }
        var differences: [String] = []
        if !missing.isEmpty { differences.append("query: recorded \(missing.joined(separator: "&")) is not asked") }
        if !extra.isEmpty { differences.append("query: asked \(extra.joined(separator: "&")) was not recorded") }
        return differences
    }

    /// Whether two bodies are equal: as JSON values when both are JSON, else as bytes.
    static func bodiesMatch(_ first: Data, _ second: Data) -> Bool {
        if first == second { return true }
        guard let one = try? JSONValue.parse(first), let other = try? JSONValue.parse(second) else { return false }
        return one == other
    }

    private static func preview(_ body: Data?) -> String {
        guard let body, !body.isEmpty else { return "(empty)" }
        guard let text = String(data: body.prefix(120), encoding: .utf8) else { return "\(body.count) bytes" }
        return "\(body.count) bytes, \"\(text)\(body.count > 120 ? "…" : "")\""
    }
}
