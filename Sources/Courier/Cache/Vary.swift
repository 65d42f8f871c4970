import Crypto
import Foundation

/// What a response's `Vary` asks of a request that a stored copy may answer (RFC 9111 §4.1): the
/// same values of the header fields it names (its selecting header fields). A stored response
/// keeps, for each name, the value the request that stored it sent; for a credential field
/// (`Authorization`, a cookie, a captured authentication header) a digest of it, never the value
/// (whether a name is a credential decides which form its value takes, so the two never mix).
struct Vary: Hashable, Sendable {
    /// The names, lowercased, sorted, without repeats; `nil` for `Vary: *`, which no request matches.
    let names: [String]?

    /// The `Vary` of `headers`, or `nil` when they have none (or an empty one).
    init?(_ headers: HTTPHeaders) {
        var names: [String] = []
        var found = false
        // Read on the values' UTF-8 bytes, no array of values: a cache hit of a Vary response
        // reads this.
        for field in headers where field.name.caseInsensitiveEquals("Vary") {
            found = true
            let value = field.value
            let bytes = value.utf8
            // The usual value: one name, nothing around it.
            if !bytes.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }), !value.isEmpty {
                guard value != "*" else {
                    self.names = nil
                    return
                }
                names.append(value.lowercased())
                continue
            }
            var start = bytes.startIndex
            while start <= bytes.endIndex {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
                let part = value[start..<end].trimmingBlanks
                if !part.isEmpty {
                    if part == "*" {
                        self.names = nil
                        return
                    }
                    names.append(part.lowercased())
                }
                guard end < bytes.endIndex else { break }
                start = bytes.index(after: end)
            }
        }
        guard found, !names.isEmpty else { return nil }
        // Usually one name: no sorting, no set.
        self.names = names.count == 1 ? names : Array(Set(names)).sorted()
    }

    /// The selecting fields of a request with `headers`: each name and its value (the field's
    /// values joined by `, `; absent when the request has none), or, for a name in `secret`,
    /// `sha256:` and the value's digest.
    func selection(of headers: HTTPHeaders, secret: [String]) -> [String: String] {
        var selection: [String: String] = [:]
        for name in names ?? [] {
            if let value = Self.value(of: name, in: headers, secret: secret) { selection[name] = value }
        }
        return selection
    }

    /// Whether a request with `headers` has the selecting fields `stored` (what ``selection(of:secret:)``
    /// gave for the request that stored a response), compared field by field without building
    /// the request's selection: a cache hit of a `Vary` response does this.
    func matches(_ stored: [String: String], headers: HTTPHeaders, secret: [String]) -> Bool {
        guard let names else { return false }
        var present = 0
        for name in names {
            let kept = stored[name]
            let fields = headers.values(for: name)
            if fields.isEmpty {
                guard kept == nil else { return false }
                continue
            }
            present += 1
            guard let kept else { return false }
            if fields.count == 1, !secret.contains(where: { $0.caseInsensitiveEquals(name) }) {
                guard kept == fields[0] else { return false }
            } else {
                guard kept == Self.value(of: name, in: headers, secret: secret) else { return false }
            }
        }
        return present == stored.count
    }

    private static func value(of name: String, in headers: HTTPHeaders, secret: [String]) -> String? {
        let values = headers.values(for: name)
        guard !values.isEmpty else { return nil }
        let value = values.count == 1 ? values[0] : values.joined(separator: ", ")
        guard secret.contains(where: { $0.caseInsensitiveEquals(name) }) else { return value }
        return "sha256:" + SHA256.hash(data: Data(value.utf8)).hex
    }
}
