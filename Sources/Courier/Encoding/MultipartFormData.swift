import Foundation

/// Builds a `multipart/form-data` body from parameters (RFC 7578).
///
/// Courier switches to this encoding by itself when a body holds binary values. Nested names are
/// flattened with brackets (`user[name]`, `photos[]`); text values become plain parts; binary values
/// become file parts with a file name and a MIME type (given, or inferred from the file name or the bytes).
package struct MultipartFormData: Sendable {
    /// The boundary between parts (random unless given).
    package let boundary: String

    /// Creates a builder with a random boundary, or the given one.
    package init(boundary: String? = nil) {
        self.boundary = boundary ?? "courier-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The `Content-Type` header value, with the boundary.
    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Encodes `parameters` (keys sorted) into a complete body.
    ///
    /// - Throws: an error naming the part when a file cannot be read or a number is not finite.
    package func encode(_ parameters: Parameters) throws -> EncodedBody {
        EncodedBody(data: try stream(parameters).collect(), contentType: contentType)
    }

    /// The body for `parameters` with file parameters as file segments: nothing is read until
    /// the body is sent. Nested parameters use bracket names (`user[name]`, `photos[]`).
    package func stream(_ parameters: Parameters) throws -> StreamedBody {
        var builder = Builder(boundary: boundary)
        for key in parameters.keys.sorted() {
            try append(parameters[key]!, name: key, to: &builder)
        }
        return builder.finish(contentType: contentType)
    }

    /// The body for explicit parts, in their order; file parts are streamed from disk.
    package func stream(_ parts: [MultipartPart]) throws -> StreamedBody {
        var builder = Builder(boundary: boundary)
        for part in parts {
            switch part.content {
            case .text(let text):
                builder.text(text, name: part.name, mimeType: part.mimeType, headers: part.headers)
            case .data(let data):
                let type = part.mimeType ?? MIMEType.infer(fileName: part.fileName, content: data)
                builder.file(.bytes(data), name: part.name, fileName: part.fileName ?? "file" + MIMEType.preferredExtension(for: type),
                             mimeType: type, headers: part.headers)
            case .file(let url):
                try builder.file(url, name: part.name, fileName: part.fileName, mimeType: part.mimeType, headers: part.headers)
            }
        }
        return builder.finish(contentType: contentType)
    }

    private func append(_ value: Parameter, name: String, to builder: inout Builder) throws {
        switch value {
        case .object(let values):
            for key in values.keys.sorted() { try append(values[key]!, name: "\(name)[\(key)]", to: &builder) }
        case .array(let values):
            for element in values { try append(element, name: "\(name)[]", to: &builder) }
        case .string(let string): builder.text(string, name: name)
        case .int(let int): builder.text(String(int), name: name)
        case .double(let double):
            guard double.isFinite else { throw ParameterEncodingError("the parameter \(name) is \(double)") }
            builder.text(JSONWriter.format(double), name: name)
        case .bool(let bool): builder.text(bool ? "true" : "false", name: name)
        case .null: builder.text("", name: name)
        case .data(let data, let fileName, let mimeType):
            let type = mimeType ?? MIMEType.infer(fileName: fileName, content: data)
            builder.file(.bytes(data), name: name, fileName: fileName ?? "file" + MIMEType.preferredExtension(for: type), mimeType: type)
        case .file(let url, let fileName, let mimeType):
            try builder.file(url, name: name, fileName: fileName, mimeType: mimeType)
        }
    }

    /// Gathers text into byte segments and files into file segments.
    struct Builder {
        let boundary: String
        var segments: [StreamedBody.Segment] = []
        var pending = Data()

        init(boundary: String) { self.boundary = boundary }

        mutating func text(_ text: String, name: String, mimeType: String? = nil, headers: HTTPHeaders = [:]) {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(MultipartFormData.quote(name))\"\r\n"
            if let mimeType { head += "Content-Type: \(mimeType)\r\n" }
            head += Self.extra(headers)
            pending.append(contentsOf: (head + "\r\n").utf8)
            pending.append(contentsOf: text.utf8)
            pending.append(contentsOf: "\r\n".utf8)
        }

        mutating func file(_ content: StreamedBody.Segment, name: String, fileName: String, mimeType: String, headers: HTTPHeaders = [:]) {
            let head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(MultipartFormData.quote(name))\"; "
                + "filename=\"\(MultipartFormData.quote(fileName))\"\r\nContent-Type: \(mimeType)\r\n" + Self.extra(headers) + "\r\n"
            pending.append(contentsOf: head.utf8)
            switch content.content {
            case .bytes(let data): pending.append(data)
            case .file:
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(content)
            }
            pending.append(contentsOf: "\r\n".utf8)
        }

        /// A file part: its size now, its bytes when sent; the type from the name or first bytes.
        mutating func file(_ url: URL, name: String, fileName: String?, mimeType: String?, headers: HTTPHeaders = [:]) throws {
            let size: Int64
            let head: Data
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                guard attributes[.type] as? FileAttributeType != .typeDirectory else {
                    throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "it is a directory"])
                }
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                head = try handle.read(upToCount: 512) ?? Data()
            } catch {
                throw ParameterEncodingError("the file \(url.path) for part \(name) cannot be read: \(error.localizedDescription)")
            }
            let file = fileName ?? url.lastPathComponent
            self.file(.file(url, length: size), name: name, fileName: file,
                      mimeType: mimeType ?? MIMEType.infer(fileName: file, content: head), headers: headers)
        }

        mutating func finish(contentType: String) -> StreamedBody {
            pending.append(contentsOf: "--\(boundary)--\r\n".utf8)
            segments.append(.bytes(pending))
            return StreamedBody(segments: segments.filter { $0.file != nil || $0.length > 0 }, contentType: contentType)
        }

        private static func extra(_ headers: HTTPHeaders) -> String {
            headers.map { "\($0.name): \($0.value.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: ""))\r\n" }.joined()
        }
    }

    static func quote(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}
