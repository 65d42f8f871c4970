import Crypto
import Foundation

/// What a response's `Vary` asks of a request that a stored copy may answer (RFC 9111 §4.1): the
/// same values of the header fields it names (its selecting header fields). A stored response
/// keeps, for each name, the value the request that stored it sent; for a credential field
/// (`Authorization`, a cookie, a captured authentication header) a digest of it, never the value.
struct Vary: Equatable {
    /// The names, lowercased, sorted, without repeats; `nil` for `Vary: *`, which no request matches.
    let names: [String]?

    /// The `Vary` of `headers`, or `nil` when they have none (or an empty one).
    init?(_ headers: HTTPHeaders) {
        let values = headers.values(for: "Vary")
        guard !values.isEmpty else { return nil }
        var names: Set<String> = []
        for value in values {
            for part in value.split(separator: ",") {
                let name = part.trimmingCharacters(in: .whitespaces).lowercased()
                guard !name.isEmpty else { continue }
                if name == "*" {
                    self.names = nil
                    return
                }
                names.insert(name)
            }
        }
        guard !names.isEmpty else { return nil }
        self.names = names.sorted()
    }

    /// The selecting fields of a request with `headers`: each name and its value (the field's
    /// values joined by `, `; `nil` when absent), or a digest of it for a name in `secret`.
    func selection(of headers: HTTPHeaders, secret: [String]) -> [String: String] {
        var selection: [String: String] = [:]
        for name in names ?? [] {
            let values = headers.values(for: name)
            guard !values.isEmpty else { continue }
            let value = values.joined(separator: ", ")
            let isSecret = secret.contains { $0.caseInsensitiveEquals(name) }
            selection[name] = isSecret ? "sha256:" + SHA256.hash(data: Data(value.utf8)).hex : "=" + value
        }
        return selection
    }
}
