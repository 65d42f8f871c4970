import Foundation

/// Percent-encoding helpers (RFC 3986).
package enum PercentEncoding {
    /// Encoded bytes being built.
    package typealias Bytes = [UInt8]

    /// Appends `string` to `output` with every byte outside the unreserved set encoded.
    package static func appendComponent(_ string: String, to output: inout Bytes) {
        for byte in string.utf8 {
            if isUnreserved(byte) { output.append(byte) } else { appendEscape(byte, to: &output) }
        }
    }

    /// `string` with every byte outside the unreserved set encoded.
    package static func encodeComponent(_ string: String) -> String {
        var output: Bytes = []
        appendComponent(string, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes a query string written by hand: like a path, but `?` is allowed too.
    static func encodeQuery(_ string: String) -> String {
        encodePath(string).replacingOccurrences(of: "%3F", with: "?")
    }

    /// Encodes a URL path: bytes allowed in a path are kept, a valid `%XX` escape is kept as it is,
    /// everything else (spaces, non-ASCII, a stray `%`) is escaped.
    static func encodePath(_ string: String) -> String {
        // In the string's own storage when it has one (most paths need no escape at all).
        let allowed: (UInt8) -> Bool = { isUnreserved($0) || pathExtras.contains($0) }
        if string.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(allowed) }) ?? string.utf8.allSatisfy(allowed) { return string }
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                output.append(contentsOf: bytes[index...(index + 2)])
                index += 3
                continue
            }
            if isUnreserved(byte) || pathExtras.contains(byte) {
                output.append(byte)
            } else {
                appendEscape(byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "%"))
        output.append(hexDigits[Int(byte >> 4)])
        output.append(hexDigits[Int(byte & 0xF)])
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    /// Sub-delimiters plus `:`, `@` and `/`: the other bytes a path may hold unescaped.
    private static let pathExtras: Set<UInt8> = Set("!$&'()*+,;=:@/".utf8)
    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
