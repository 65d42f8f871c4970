import Foundation

extension URL {
    /// The URL for telemetry: without user info, query and fragment (any of them may carry secrets).
    /// Found by scanning the text's UTF-8 bytes (every separator is ASCII), which costs far less
    /// than `URLComponents` or Foundation's `range(of:)`.
    var redactedForTelemetry: String {
        let text = absoluteString
        let bytes = text.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        guard let authorityStart = Self.afterSchemeSeparator(bytes[..<end]) else { return String(text[..<end]) }
        let authorityEnd = bytes[authorityStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return String(text[..<end]) }
        return String(text[..<authorityStart]) + text[bytes.index(after: at)..<end]
    }

    /// The index just past the first `://`.
    private static func afterSchemeSeparator(_ bytes: Substring.UTF8View) -> String.Index? {
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[bytes.index(after: colon)...]
            if rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) { return bytes.index(colon, offsetBy: 3) }
            index = bytes.index(after: colon)
        }
        return nil
    }
}
