import Foundation

/// Builds a `multipart/form-data` body from parameters (RFC 7578).
///
/// Courier switches to this encoding by itself when a body holds binary values. Nested names are
/// flattened with brackets (`user[name]`, `photos[]`); text values become plain parts; binary values
/// become file parts with a file name and a MIME type (given, or inferred by ``MIMEType``).
public struct MultipartFormData: Sendable {
    /// The boundary between parts (random unless given).
    public let boundary: String

    /// Creates a builder with a random boundary, or the given one.
    public init(boundary: String? = nil) {
        self.boundary = boundary ?? "courier-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The `Content-Type` header value, with the boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Encodes `parameters` (keys sorted) into a complete body.
    ///
    /// - Throws: ``ParameterEncodingError`` when a file cannot be read or a number is not finite.
    public func encode(_ parameters: Parameters) throws -> EncodedBody {
        var body = Data()
        for key in parameters.keys.sorted() {
            try append(parameters[key]!, name: key, to: &body)
        }
        body.append(contentsOf: "--\(boundary)--\r\n".utf8)
        return EncodedBody(data: body, contentType: contentType)
    }

    private func append(_ value: Parameter, name: String, to body: inout Data) throws {
        switch value {
        case .object(let values):
            for key in values.keys.sorted() { try append(values[key]!, name: "\(name)[\(key)]", to: &body) }
        case .array(let values):
            for element in values { try append(element, name: "\(name)[]", to: &body) }
        case .string(let string): appendText(string, name: name, to: &body)
        case .int(let int): appendText(String(int), name: name, to: &body)
        case .double(let double):
            guard double.isFinite else { throw ParameterEncodingError("the parameter \(name) is \(double)") }
            appendText(JSONWriter.format(double), name: name, to: &body)
        case .bool(let bool): appendText(bool ? "true" : "false", name: name, to: &body)
        case .null: appendText("", name: name, to: &body)
        case .data(let data, let fileName, let mimeType):
            let type = mimeType ?? MIMEType.infer(fileName: fileName, content: data)
            let file = fileName ?? "file" + MIMEType.preferredExtension(for: type)
            appendFile(data, name: name, fileName: file, mimeType: type, to: &body)
        case .file(let url, let fileName, let mimeType):
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw ParameterEncodingError("the file \(url.path) for parameter \(name) cannot be read: \(error.localizedDescription)")
            }
            let file = fileName ?? url.lastPathComponent
            appendFile(data, name: name, fileName: file, mimeType: mimeType ?? MIMEType.infer(fileName: file, content: data), to: &body)
        }
    }

    private func appendText(_ text: String, name: String, to body: inout Data) {
        body.append(contentsOf: "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quote(name))\"\r\n\r\n".utf8)
        body.append(contentsOf: text.utf8)
        body.append(contentsOf: "\r\n".utf8)
    }

    private func appendFile(_ data: Data, name: String, fileName: String, mimeType: String, to body: inout Data) {
        body.append(contentsOf: ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quote(name))\"; "
            + "filename=\"\(Self.quote(fileName))\"\r\nContent-Type: \(mimeType)\r\n\r\n").utf8)
        body.append(data)
        body.append(contentsOf: "\r\n".utf8)
    }

    /// Escapes a quoted header parameter as HTML5 form submission does (`"` → `%22`, line breaks).
    static func quote(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}
