import Foundation

/// How a body's bytes and a HAR `text` field turn into each other.
///
/// HAR keeps bodies as decoded text. Reading one back needs the charset the writer decoded with:
/// the `Content-Type`'s `charset`, else UTF-8 for JSON, else ISO 8859-1 (as mitmproxy writes and
/// reads them). Courier writes a body as text only when reading it back this way gives the same
/// bytes; any other body is written base64-encoded.
enum HARBodyText {
    /// The bytes `text` stands for under `mimeType`.
    static func bytes(_ text: String, mimeType: String) -> Data {
        let encoding = charset(of: mimeType)
        if let data = text.data(using: encoding) { return data }
        return Data(text.utf8)  // a character the charset cannot hold: the writer did not use it
    }

    /// `body` as text that ``bytes(_:mimeType:)`` turns back into the same bytes, or `nil`: for
    /// textual types (and bodies of printable ASCII whatever their type); images and other binary
    /// types are always base64.
    static func text(_ body: Data, mimeType: String) -> String? {
        let textual = isTextual(mimeType)
        let plausible = body.withUnsafeBytes { bytes in
            textual ? !bytes.contains(0) : bytes.allSatisfy { (0x20...0x7E).contains($0) || (0x09...0x0D).contains($0) }
        }
        guard plausible else { return nil }
        let encoding = charset(of: mimeType)
        guard let text = String(data: body, encoding: encoding) else { return nil }
        // UTF-8 and ISO 8859-1 turn back into the same bytes by construction; other charsets may not.
        guard encoding == .utf8 || encoding == .isoLatin1 || text.data(using: encoding) == body else { return nil }
        return text
    }

    /// Whether `mimeType` names text: `text/*`, JSON, XML, JavaScript, form or GraphQL bodies.
    static func isTextual(_ mimeType: String) -> Bool {
        mimeType.utf8.count >= 5 && ASCIISearch.contains("text/", in: String(mimeType.prefix(5)))
            || ["json", "xml", "javascript", "x-www-form-urlencoded", "graphql"].contains { ASCIISearch.contains($0, in: mimeType) }
    }

    /// The charset of `mimeType`: its `charset` parameter, else UTF-8 for JSON, else ISO 8859-1.
    static func charset(of mimeType: String) -> String.Encoding {
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
        return ASCIISearch.contains("json", in: lowered) ? .utf8 : .isoLatin1
    }

    /// A parameter's name or value without the spaces and quotes around it.
    private static func unquoted(_ part: Substring) -> String {
        let kept = { (character: Character) in character != " " && character != "\"" && character != "'" }
        guard let first = part.firstIndex(where: kept), let last = part.lastIndex(where: kept) else { return "" }
        return String(part[first...last])
    }
}
