import Foundation

extension URL {
    /// The query's names and values, percent-decoded, as `URLComponents.queryItems` gives them (a
    /// missing value is empty), split by hand: a second `URLComponents` parse cost more than the
    /// rest of a recorded request's HAR entry. Used for HAR's `queryString` and for matching.
    var queryPairs: [(name: String, value: String)] {
        guard let query = query(percentEncoded: true), !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: false).map { item in
            let (name, value) = item.firstIndex(of: "=").map { (item[..<$0], item[item.index(after: $0)...]) } ?? (item, "")
            return (Self.decoded(name), Self.decoded(value))
        }
    }

    private static func decoded(_ part: Substring) -> String {
        let text = String(part)
        guard part.utf8.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }
}
