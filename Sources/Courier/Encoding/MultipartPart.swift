import Foundation

/// One part of an explicit multipart upload (seed 003's `MJApiUploadRequest`).
///
/// ```swift
/// let parts: [MultipartPart] = [
///     .text("title", "Sunset"),
///     .file("image", URL(fileURLWithPath: "/tmp/sunset.jpg")),   // streamed from disk
/// ]
/// ```
public struct MultipartPart: Sendable, Hashable {
    /// Where a part's bytes come from.
    public enum Content: Sendable, Hashable {
        /// Text, sent as UTF-8.
        case text(String)
        /// Bytes in memory.
        case data(Data)
        /// A file, streamed from disk when the request is sent.
        case file(URL)
    }

    /// The form field name.
    public var name: String
    /// The content.
    public var content: Content
    /// The file name sent in `Content-Disposition` (files and data only); defaults to the file's
    /// last path component, or `file` plus an extension for the MIME type.
    public var fileName: String?
    /// The part's `Content-Type`; inferred from the file name or the first bytes when `nil`.
    public var mimeType: String?
    /// Extra headers for this part.
    public var headers: HTTPHeaders

    /// Creates a part.
    public init(name: String, content: Content, fileName: String? = nil, mimeType: String? = nil, headers: HTTPHeaders = [:]) {
        self.name = name
        self.content = content
        self.fileName = fileName
        self.mimeType = mimeType
        self.headers = headers
    }

    /// A text field.
    public static func text(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, content: .text(value))
    }

    /// Bytes sent as a file.
    public static func data(_ name: String, _ data: Data, fileName: String? = nil, mimeType: String? = nil) -> MultipartPart {
        MultipartPart(name: name, content: .data(data), fileName: fileName, mimeType: mimeType)
    }

    /// A file streamed from disk.
    public static func file(_ name: String, _ url: URL, fileName: String? = nil, mimeType: String? = nil) -> MultipartPart {
        MultipartPart(name: name, content: .file(url), fileName: fileName, mimeType: mimeType)
    }
}

extension MultipartPart {
    /// The part as a parameter, for the cache key (files by content digest).
    var canonicalParameter: Parameter {
        let content: Parameter = switch self.content {
        case .text(let text): .string(text)
        case .data(let data): .data(data, fileName: fileName, mimeType: mimeType)
        case .file(let url): .file(url, fileName: fileName, mimeType: mimeType)
        }
        return .object(["name": .string(name), "content": content, "headers": .string(headers.description)])
    }
}
