import Courier
import Foundation

/// Applies a ``CassetteRedaction``: finds secrets in named places, replaces them there, and scrubs
/// every known secret (in each of its written forms) from everything else. The secrets it has
/// seen stay in memory only.
struct Redactor: Sendable {
    let rules: CassetteRedaction
    /// The text forms of every secret seen so far, longest first.
    private(set) var forms: [String] = []
    private var known: Set<String> = []

    /// Secrets shorter than this are replaced where they are named but not searched for elsewhere:
    /// a short value would match unrelated text.
    static let shortestScrubbed = 6

    /// Names of the rules, lowercased: a secret equal to one (a password that is "password") is
    /// replaced where it is named but not searched for, or the names themselves would go.
    private let names: Set<String>
    /// The rules' header and body field names, lowercased, for lookups in any case.
    private let secretHeaders: Set<String>
    private let secretFields: Set<String>

    init(rules: CassetteRedaction) {
        self.rules = rules
        secretHeaders = Set(rules.headers.map { $0.lowercased() })
        secretFields = Set(rules.bodyFields.map { $0.lowercased() })
        names = secretHeaders.union(secretFields).union(rules.queryParameters.map { $0.lowercased() })
    }

    private func isSecretHeader(_ name: String) -> Bool { !secretHeaders.isEmpty && secretHeaders.contains(name.lowercased()) }
    private func isSecretField(_ name: String) -> Bool { !secretFields.isEmpty && secretFields.contains(name.lowercased()) }

    /// Remembers `secret` and its forms.
    mutating func learn(_ secret: String) {
        guard secret.count >= Self.shortestScrubbed, secret != rules.placeholder, !names.contains(secret.lowercased()),
              known.insert(secret).inserted
        else { return }
        var added = Set([secret])
        for encoded in [Self.percentEncoded(secret, spaceAsPlus: false), Self.percentEncoded(secret, spaceAsPlus: true)] {
            added.insert(encoded)
        }
        for core in Self.base64Cores(of: Data(secret.utf8)) { added.insert(core) }
        forms = (Set(forms).union(added)).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    // MARK: Requests and responses

    /// `request` with its secrets replaced, every known one scrubbed; the secrets are learned first.
    mutating func redact(_ request: TransportRequest) -> TransportRequest {
        let named = replaceNamed(in: request)  // first: it learns the secrets `scrub` must know
        return scrub(named)
    }

    /// Learns the secrets in the named places of `request` (headers, query parameters, body fields)
    /// and replaces them there.
    mutating func replaceNamed(in request: TransportRequest) -> TransportRequest {
        var request = request
        learnAndReplace(in: &request.headers)
        if let url = redactQuery(of: request.url) { request.url = url }
        if let body = request.body {
            request.body = redactFields(in: body, contentType: request.headers["Content-Type"])
        }
        return request
    }

    /// Learns the secrets in the named places of a response (headers, body fields) and replaces them there.
    mutating func replaceNamed(in headers: inout HTTPHeaders, body: inout Data) {
        learnAndReplace(in: &headers)
        body = redactFields(in: body, contentType: headers["Content-Type"])
    }

    /// `request` with every known secret scrubbed (no new ones learned).
    func scrub(_ request: TransportRequest) -> TransportRequest {
        guard !forms.isEmpty else { return request }
        var request = request
        request.headers = scrub(request.headers)
        if let url = URL(string: scrub(request.url.absoluteString)) { request.url = url }
        if let body = request.body { request.body = scrub(body) }
        return request
    }

    /// `headers` with every known secret scrubbed.
    func scrub(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard !forms.isEmpty else { return headers }
        var scrubbed = HTTPHeaders()
        for field in headers { scrubbed.add(name: field.name, value: scrub(field.value)) }
        return scrubbed
    }

    /// `text` with every known secret replaced.
    func scrub(_ text: String) -> String {
        var text = text
        for form in forms where text.contains(form) { text = text.replacingOccurrences(of: form, with: rules.placeholder) }
        return text
    }

    /// `data` with every known secret replaced, as bytes.
    func scrub(_ data: Data) -> Data {
        guard !forms.isEmpty else { return data }
        var data = data
        let placeholder = Data(rules.placeholder.utf8)
        for form in forms {
            let pattern = Data(form.utf8)
            var searchStart = data.startIndex
            while let range = data.range(of: pattern, in: searchStart..<data.endIndex) {
                data.replaceSubrange(range, with: placeholder)
                searchStart = range.lowerBound + placeholder.count
            }
        }
        return data
    }

    // MARK: Named places

    private mutating func learnAndReplace(in headers: inout HTTPHeaders) {
        var redacted = HTTPHeaders()
        for field in headers {
            guard isSecretHeader(field.name) else {
                redacted.add(name: field.name, value: field.value)
                continue
            }
            redacted.add(name: field.name, value: redactHeaderValue(name: field.name.lowercased(), value: field.value))
        }
        headers = redacted
    }

    private mutating func redactHeaderValue(name: String, value: String) -> String {
        switch name {
        case "authorization", "proxy-authorization":
            if let space = value.firstIndex(of: " ") {
                let credentials = value[value.index(after: space)...].trimmingCharacters(in: .whitespaces)
                learn(credentials)
                return "\(value[..<space]) \(rules.placeholder)"
            }
        case "cookie":
            return value.split(separator: ";").map { pair in redactCookiePair(pair.trimmingCharacters(in: .whitespaces)) }
                .joined(separator: "; ")
        case "set-cookie":
            let parts = value.split(separator: ";", maxSplits: 1)
            guard let first = parts.first else { return value }
            return redactCookiePair(first.trimmingCharacters(in: .whitespaces)) + (parts.count > 1 ? ";" + parts[1] : "")
        default:
            break
        }
        learn(value)
        return rules.placeholder
    }

    private mutating func redactCookiePair(_ pair: String) -> String {
        guard let equals = pair.firstIndex(of: "=") else { return pair }
        learn(String(pair[pair.index(after: equals)...]))
        return "\(pair[..<equals])=\(rules.placeholder)"
    }

    private mutating func redactQuery(of url: URL) -> URL? {
        guard !rules.queryParameters.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.percentEncodedQueryItems
        else { return nil }
        var changed = false
        components.percentEncodedQueryItems = items.map { item in
            guard rules.queryParameters.contains(item.name.removingPercentEncoding ?? item.name), let value = item.value else { return item }
            learn(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
            changed = true
            return URLQueryItem(name: item.name, value: rules.placeholder)
        }
        return changed ? components.url : nil
    }

    private mutating func redactFields(in body: Data, contentType: String?) -> Data {
        guard !rules.bodyFields.isEmpty, !body.isEmpty else { return body }
        let type = contentType?.lowercased() ?? ""
        if type.contains("application/x-www-form-urlencoded") {
            return redactFormFields(in: body)
        }
        guard type.contains("json") || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "["),
              let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        else { return body }
        var changed = false
        let redacted = redactJSON(object, changed: &changed)
        guard changed, let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed])
        else { return body }
        return data
    }

    private mutating func redactJSON(_ value: Any, changed: inout Bool) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, field) in object {
                if isSecretField(key), !(field is [String: Any]), !(field is [Any]), !(field is NSNull) {
                    learn(Self.text(of: field))
                    result[key] = rules.placeholder
                    changed = true
                } else {
                    result[key] = redactJSON(field, changed: &changed)
                }
            }
            return result
        }
        if let array = value as? [Any] { return array.map { redactJSON($0, changed: &changed) } }
        return value
    }

    private mutating func redactFormFields(in body: Data) -> Data {
        guard let text = String(data: body, encoding: .utf8) else { return body }
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals]).replacingOccurrences(of: "+", with: " ")
            guard isSecretField(name.removingPercentEncoding ?? name) else { return String(pair) }
            let value = String(pair[pair.index(after: equals)...]).replacingOccurrences(of: "+", with: " ")
            learn(value.removingPercentEncoding ?? value)
            return "\(pair[..<equals])=\(rules.placeholder)"
        }
        return Data(pairs.joined(separator: "&").utf8)
    }

    // MARK: Forms of a secret

    private static func text(of scalar: Any) -> String {
        if let string = scalar as? String { return string }
        if let number = scalar as? NSNumber { return number.stringValue }
        return "\(scalar)"
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded (a space as `+`
    /// in form bodies when `spaceAsPlus`).
    static func percentEncoded(_ text: String, spaceAsPlus: Bool) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: " ") where spaceAsPlus:
                output += "+"
            default:
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }

    /// The base64 text (standard and URL-safe alphabets) that appears wherever `secret` is encoded
    /// inside a longer base64 string, at each of the three byte alignments: the characters that
    /// depend on the secret's bytes alone.
    static func base64Cores(of secret: Data) -> [String] {
        var cores: [String] = []
        for offset in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: offset) + secret).base64EncodedString().utf8)
            let start = offset == 0 ? 0 : 4
            let total = offset + secret.count
            let end = total / 3 * 4  // whole groups only: a partial last group mixes with what follows
            guard end - start >= shortestScrubbed else { continue }
            let core = String(decoding: encoded[start..<end], as: UTF8.self)
            cores.append(core)
            cores.append(core.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
        }
        return cores
    }
}
