import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

// Between swift-http-types' values, which generated code speaks, and Courier's requests and responses.
extension APIClientTransport {
    /// A Courier request for `request`: the URL the generated code asked for, its headers, its body
    /// (in memory, or spooled to a file that the caller removes once sent), named by its operation.
    func makeRequest(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws(CourierError) -> (request: Request<Data>, spooled: URL?) {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let target = request.path ?? "/"
        var headers = HTTPHeaders()
        var contentType: String?
        for field in request.headerFields {
            switch field.name {
            case .contentLength: continue  // the transport sets it for the body it sends
            case .contentType: contentType = field.value
            default: headers.add(name: field.name.rawName, value: field.value)
            }
        }
        var courierRequest = Request<Data>(HTTPMethod(rawValue: request.method.rawValue), base + target, headers: headers)
        courierRequest.name = operationID
        var spooled: URL?
        if let body {
            let type = contentType ?? "application/octet-stream"
            switch try await RequestBodyReader(limit: maximumRequestBodySize, operationID: operationID).read(body) {
            case .memory(let bytes):
                courierRequest.body = .data(bytes, contentType: type)
            case .file(let file, let length):
                spooled = file
                courierRequest.streamedBody = StreamedBody(segments: [.file(file, length: length)], contentType: type)
            }
        } else if let contentType {
            courierRequest.headers.add(name: "Content-Type", value: contentType)
        }
        return (courierRequest, spooled)
    }

    /// A response for generated code: the status, the headers HTTP allows, and the body (none when
    /// empty). A status swift-http-types cannot hold (outside 0-999) is the server's error, not a crash.
    static func answer(status: Int, headers: HTTPHeaders, body: Data) throws(CourierError) -> (HTTPResponse, HTTPBody?) {
        guard (0...999).contains(status) else {
            throw CourierError(.invalidResponse, "The server answered with the status \(status), which is not an HTTP status code.", statusCode: status)
        }
        var fields = HTTPFields()
        for field in headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return (HTTPResponse(status: .init(code: status), headerFields: fields), body.isEmpty ? nil : Self.body(body))
    }

    /// `data` as a body for generated code, copied in one block: `HTTPBody(Data)` copies through
    /// an `ArraySlice`, byte by byte, which cost more than the rest of the conversion.
    static func body(_ data: Data) -> HTTPBody {
        HTTPBody([UInt8](unsafeUninitializedCapacity: data.count) { buffer, count in count = data.copyBytes(to: buffer) })
    }
}
