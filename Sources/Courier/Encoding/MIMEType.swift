import Foundation

/// MIME type inference for multipart file parts.
enum MIMEType {
    /// The MIME type for a file name's extension, else for the content's leading bytes, else
    /// `application/octet-stream`.
    static func infer(fileName: String?, content: Data?) -> String {
        if let fileName, let dot = fileName.lastIndex(of: ".") {
            let ext = fileName[fileName.index(after: dot)...].lowercased()
            if let type = byExtension[ext] { return type }
        }
        if let content, let type = sniff(content) { return type }
        return "application/octet-stream"
    }

    /// A file extension (with its dot) for a MIME type, or `""` when none is known.
    static func preferredExtension(for mimeType: String) -> String {
        preferred[mimeType].map { "." + $0 } ?? ""
    }

    /// Recognises common formats by their signature bytes.
    static func sniff(_ data: Data) -> String? {
        let head = [UInt8](data.prefix(12))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<(offset + signature.count)]) == signature
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF8".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = head.count >= 12 ? String(decoding: head[8..<12], as: UTF8.self) : ""
            return ["heic", "heix", "mif1"].contains(brand) ? "image/heic" : "video/mp4"
        }
        return nil
    }

    private static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "svg": "image/svg+xml", "bmp": "image/bmp",
        "tif": "image/tiff", "tiff": "image/tiff", "pdf": "application/pdf", "json": "application/json",
        "xml": "application/xml", "txt": "text/plain", "csv": "text/csv", "html": "text/html",
        "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4", "mov": "video/quicktime",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
    ]

    private static let preferred: [String: String] = [
        "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp",
        "image/heic": "heic", "application/pdf": "pdf", "video/mp4": "mp4",
    ]
}
