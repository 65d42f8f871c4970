import Courier
import Foundation

/// How a body's bytes and a HAR `text` field turn into each other.
///
/// HAR keeps bodies as decoded text. Reading one back needs the charset the writer decoded with,
/// which a file does not say unless the type has a `charset`. Writers differ: browsers decode text
/// as UTF-8 and keep a binary type's bytes one character each, mitmproxy decodes with the type's
/// charset, else UTF-8 for JSON, else ISO 8859-1 (as Courier writes them too). The length the file
/// gives the body (`content.size`, the decoded length; mitmproxy's is the encoded one, with the
/// difference in `compression`) tells which; without it, textual types read as UTF-8. Courier
/// writes a body as text only when reading it back this way gives the same bytes; any other body
/// is written base64-encoded.
enum HARBodyText {
    /// The bytes `text` stands for under `mimeType`, written by a tool that gave the body one of
    /// `lengths` (none when the file gives none): the type's `charset` when it has one; else
    /// UTF-8 when that has one of the lengths, else ISO 8859-1 when that has one of them; else
    /// UTF-8 for a textual type (text, JSON, JavaScript, XML), else ISO 8859-1 when every
    /// character fits in it, else UTF-8.
    static func bytes(_ text: String, mimeType: String, lengths: [Int] = []) -> Data {
        if let encoding = declaredCharset(of: mimeType) {
            return text.data(using: encoding) ?? Data(text.utf8)  // a character the charset cannot hold: the writer did not use it
        }
        let utf8 = Data(text.utf8)
        if lengths.contains(utf8.count) { return utf8 }
        guard let latin1 = text.data(using: .isoLatin1) else { return utf8 }
        if lengths.contains(latin1.count) { return latin1 }
        return isTextual(mimeType) ? utf8 : latin1
    }

    /// How a body is written as a HAR `text` field.
    enum Form {
        /// Its bytes as they are: ASCII, which every charset Courier reads back with (all but
        /// UTF-16) turns into the same bytes.
        case ascii
        /// Decoded text that ``HARBodyText/bytes(_:mimeType:)`` turns back into the same bytes.
        case text(String)
        /// Base64 of the bytes: binary, or text that would not read back the same.
        case base64

        /// Writes `body` in this form as a JSON string.
        func write(_ body: Data, to json: inout JSONWriter) {
            switch self {
            case .ascii: body.withUnsafeBytes { json.writeString(utf8: $0) }
            case .text(let text): json.write(text)
            case .base64: json.write(body.base64EncodedString())
            }
        }
    }

    /// How `body` is written under `mimeType`: as text for textual types (and bodies of printable
    /// ASCII whatever their type) when reading it back gives the same bytes; images and other
    /// binary types are always base64.
    static func form(_ body: Data, mimeType: String) -> Form {
        let textual = isTextual(mimeType)
        let (plausible, ascii) = body.withUnsafeBytes { bytes in
            textual ? textScan(bytes) : printableScan(bytes)
        }
        guard plausible else { return .base64 }
        let encoding = charset(of: mimeType)
        let utf16 = encoding == .utf16 || encoding == .utf16BigEndian || encoding == .utf16LittleEndian
        if ascii, !utf16 { return .ascii }
        guard let text = String(data: body, encoding: encoding) else { return .base64 }
        // UTF-8 and ISO 8859-1 turn back into the same bytes by construction; other charsets may not.
        guard encoding == .utf8 || encoding == .isoLatin1 || text.data(using: encoding) == body else { return .base64 }
        return .text(text)
    }

    /// Text may hold anything but NUL: whether it has none, and whether it is all ASCII, read
    /// eight bytes at a time.
    private static func textScan(_ bytes: UnsafeRawBufferPointer) -> (plausible: Bool, ascii: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var ascii = true
        var index = 0
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if (word &- ones) & ~word & highBits != 0 { return (false, false) }  // one of the eight is 0
            if word & highBits != 0 { ascii = false }
            index += 8
        }
        for byte in bytes[index...] {
            if byte == 0 { return (false, false) }
            if byte >= 0x80 { ascii = false }
        }
        return (true, ascii)
    }

    /// A body of another type passes as text only when it is printable ASCII.
    private static func printableScan(_ bytes: UnsafeRawBufferPointer) -> (plausible: Bool, ascii: Bool) {
        let printable = bytes.allSatisfy { (0x20...0x7E).contains($0) || (0x09...0x0D).contains($0) }
        return (printable, printable)
    }

    /// Whether `mimeType` names text: `text/*`, JSON, XML, JavaScript, form or GraphQL bodies.
    static func isTextual(_ mimeType: String) -> Bool {
        mimeType.utf8.count >= 5 && ASCIISearch.contains("text/", in: String(mimeType.prefix(5)))
            || ["json", "xml", "javascript", "x-www-form-urlencoded", "graphql"].contains { ASCIISearch.contains($0, in: mimeType) }
    }

    /// The charset Courier writes `mimeType`'s text in: its `charset` parameter, else UTF-8 for
    /// JSON, else ISO 8859-1.
    static func charset(of mimeType: String) -> String.Encoding {
        declaredCharset(of: mimeType) ?? (ASCIISearch.contains("json", in: mimeType) ? .utf8 : .isoLatin1)
    }

    /// The `charset` parameter of `mimeType`, if it has one (an unknown one reads as UTF-8).
    static func declaredCharset(of mimeType: String) -> String.Encoding? {
        // Most types have no parameters: no lowercased copy and no split for them.
        guard mimeType.utf8.contains(UInt8(ascii: ";")) else { return nil }
        let lowered = mimeType.lowercased()
        for parameter in lowered.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(unquoted)
            guard pair.count == 2, pair[0] == "charset" else { continue }
            switch pair[1] {
            case "utf-8", "utf8": return .utf8
            case "iso-8859-1", "latin-1", "latin1", "l1": return .isoLatin1
            case "us-ascii", "ascii": return .ascii
            case "utf-16": return .utf16
            case "utf-16le": return .utf16LittleEndian
            case "utf-16be": return .utf16BigEndian
            case "windows-1252", "cp1252": return .windowsCP1252
            default: return .utf8
            }
        }
        return nil
    }

    /// A parameter's name or value without the spaces and quotes around it.
    private static func unquoted(_ part: Substring) -> String {
        let kept = { (character: Character) in character != " " && character != "\"" && character != "'" }
        guard let first = part.firstIndex(where: kept), let last = part.lastIndex(where: kept) else { return "" }
        return String(part[first...last])
    }
}
