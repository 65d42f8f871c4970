import Foundation

extension URL {
    /// The URL for telemetry: without user info, query and fragment (any of them may carry secrets).
    /// Found by scanning the text's UTF-8 bytes (every separator is ASCII), which costs far less
    /// than `URLComponents` or Foundation's `range(of:)`.
    var redactedForTelemetry: String {
        var text = absoluteString
        return text.withUTF8 { bytes in
            let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
            // The authority starts after the first `://` before the end.
            var authorityStart: Int?
            var index = 0
            while index + 2 < end {
                if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
                    authorityStart = index + 3
                    break
                }
                index += 1
            }
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            guard let authorityStart else { return text(0..<end) }
            let authorityEnd = bytes[authorityStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
            guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return text(0..<end) }
            return text(0..<authorityStart) + text((at + 1)..<end)
        }
    }
}
