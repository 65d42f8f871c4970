import Foundation

/// Finds lowercase ASCII words in bytes or text with letters compared without case, byte by byte
/// (Foundation's `contains` on strings goes through `NSString`, and a recording runs these on
/// every exchange).
enum ASCIISearch {
    /// Whether `word`, lowercase ASCII, appears in `text` in any case.
    static func contains(_ word: String, in text: String) -> Bool {
        var text = text
        return text.withUTF8 { contains(word, in: UnsafeRawBufferPointer($0)) }
    }

    /// Whether `word`, lowercase ASCII, appears in `data` in any case.
    static func contains(_ word: String, in data: Data) -> Bool {
        data.withUnsafeBytes { contains(word, in: $0) }
    }

    /// Whether `word`, lowercase ASCII, appears in `bytes` in any case.
    static func contains(_ word: String, in bytes: UnsafeRawBufferPointer) -> Bool {
        var word = word
        return word.withUTF8 { contains(UnsafeRawBufferPointer($0), in: bytes) }
    }

    private static func contains(_ needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = needle.first else { return true }
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where lowered(bytes[start]) == first {
            var matched = 1
            while matched < needle.count, lowered(bytes[start + matched]) == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
