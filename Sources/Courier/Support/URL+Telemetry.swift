import Foundation

extension URL {
    /// The URL for telemetry: without user info, query and fragment (any of them may carry secrets).
    /// Found by scanning the text, which costs far less than `URLComponents`.
    var redactedForTelemetry: String {
        let text = absoluteString
        var end = text.endIndex
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { end = cut }
        guard let scheme = text.range(of: "://"), scheme.upperBound <= end else { return String(text[..<end]) }
        let authorityEnd = text[scheme.upperBound..<end].firstIndex(of: "/") ?? end
        guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return String(text[..<end]) }
        return String(text[..<scheme.upperBound]) + text[text.index(after: at)..<end]
    }
}
