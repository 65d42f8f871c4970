import Foundation

extension URL {
    /// The URL for telemetry: without user info, query and fragment (any of them may carry secrets).
    /// Found by scanning the text's UTF-8 bytes (every separator is ASCII), which costs far less
    /// than `URLComponents` or Foundation's `range(of:)`.
    var redactedForTelemetry: String {
        let text = absoluteString
        let bytes = text.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        guard let authorityStart = URLBuilder.schemeSeparator(in: text[..<end])?.upperBound else { return String(text[..<end]) }
        let authorityEnd = bytes[authorityStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return String(text[..<end]) }
        return String(text[..<authorityStart]) + text[bytes.index(after: at)..<end]
    }
}
