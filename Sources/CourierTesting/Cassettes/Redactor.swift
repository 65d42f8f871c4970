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
    /// The rules' header and body field names, lowercased, compared in any case without a
    /// lowercased copy of each name looked up (a recording looks up every header it sees).
    private let secretHeaders: [String]
    private let secretFields: Set<String>
    /// The rules' query parameter names, lowercased, for the search before a query is parsed.
    private let queryNames: Set<String>

    init(rules: CassetteRedaction) {
        self.rules = rules
        secretHeaders = Array(Set(rules.headers.map { $0.lowercased() }))
        secretFields = Set(rules.bodyFields.map { $0.lowercased() })
        queryNames = Set(rules.queryParameters.map { $0.lowercased() })
        names = secretFields.union(secretHeaders).union(queryNames)
    }

    private func isSecretHeader(_ name: String) -> Bool { secretHeaders.contains { $0.caseInsensitiveEquals(name) } }
    private func isSecretField(_ name: String) -> Bool { !secretFields.isEmpty && secretFields.contains(name.lowercased()) }

    /// Remembers `secret` and its forms.
    mutating func learn(_ secret: String) {
        guard secret.count >= Self.shortestScrubbed, secret != rules.placeholder, !names.contains(secret.lowercased()),
              known.insert(secret).inserted
        else { return }
        var added = Set([secret])
        let encoded = PercentEncoding.encodeComponent(secret)
        added.insert(encoded)
        added.insert(encoded.replacingOccurrences(of: "%20", with: "+"))  // a form body's space
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

    /// `session` with every secret learnt replaced in its messages and close reason.
    func scrub(_ session: RecordedWebSocket) -> RecordedWebSocket {
        var session = session
        for index in session.messages.indices {
            switch session.messages[index].message {
            case .text(let text): session.messages[index].message = .text(scrub(text))
            case .binary(let data): session.messages[index].message = .binary(scrub(data))
            }
        }
        session.close = session.close.map { ($0.code, scrub($0.reason)) }
        return session
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
        guard headers.contains(where: { isSecretHeader($0.name) }) else { return }
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
        guard !rules.queryParameters.isEmpty, let query = url.query(percentEncoded: true),
              // Parsed only when a parameter's name may be in it: spelled out (in any case), or escaped.
              query.utf8.contains(UInt8(ascii: "%")) || queryNames.contains(where: { ASCIISearch.contains($0, in: query) }),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
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

    /// Whether `body` may hold one of the `fields` (lowercased): one appears in it in any case, it
    /// has escapes (`\u0070assword` in JSON, `pass%77ord` in a form) that could spell one, or a
    /// field's name is not ASCII (its other cases are not searched for).
    private func mayName(_ fields: Set<String>, _ body: Data) -> Bool {
        fields.contains { !$0.utf8.allSatisfy { $0 < 0x80 } } || ASCIISearch.contains("\\u", in: body) || ASCIISearch.contains("%", in: body)
            || fields.contains { ASCIISearch.contains($0, in: body) }
    }

    private mutating func redactFields(in body: Data, contentType: String?) -> Data {
        guard !rules.bodyFields.isEmpty, !body.isEmpty, mayName(secretFields, body) else { return body }
        let type = contentType ?? ""
        if ASCIISearch.contains("application/x-www-form-urlencoded", in: type) {
            return redactFormFields(in: body)
        }
        guard ASCIISearch.contains("json", in: type) || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "["),
              let value = try? JSONValue.parse(body)
        else { return body }
        var changed = false
        let redacted = redactJSON(value, changed: &changed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard changed, let data = try? encoder.encode(redacted) else { return body }
        return data
    }

    private mutating func redactJSON(_ value: JSONValue, changed: inout Bool) -> JSONValue {
        switch value {
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for (key, field) in object {
                switch field {
                case .string(let text) where isSecretField(key): learn(text)
                case .int(let number) where isSecretField(key): learn(String(number))
                case .double(let number) where isSecretField(key): learn(String(number))
                case .bool(let flag) where isSecretField(key): learn(String(flag))
                default:
                    result[key] = redactJSON(field, changed: &changed)
                    continue
                }
                result[key] = .string(rules.placeholder)
                changed = true
            }
            return .object(result)
        case .array(let values):
            return .array(values.map { redactJSON($0, changed: &changed) })
        default:
            return value
        }
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
