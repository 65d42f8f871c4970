import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

// Between swift-http-types' values, which generated code speaks, and Courier's requests and responses.
extension APIClientTransport {
    /// A Courier request for `request`: the URL the generated code asked for, its headers, its body
    /// read whole, named by its operation.
    func makeRequest(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws(CourierError) -> Request<Data> {
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
        var requestBody = RequestBody.none
        if let body {
            let bytes = try await Self.collect(body, upTo: maximumRequestBodySize, operationID: operationID)
            requestBody = .data(bytes, contentType: contentType ?? "application/octet-stream")
        } else if let contentType {
            headers.add(name: "Content-Type", value: contentType)
        }
        var courierRequest = Request<Data>(HTTPMethod(rawValue: request.method.rawValue), base + target, body: requestBody, headers: headers)
        courierRequest.name = operationID
        return courierRequest
    }

    /// The whole of `body`, or an ``Courier/CourierError/Kind/invalidRequest`` error when it is
    /// longer than `limit` or cannot be read.
    static func collect(_ body: HTTPBody, upTo limit: Int, operationID: String) async throws(CourierError) -> Data {
        guard limit >= 0 else {
            throw CourierError(.invalidRequest, "The transport's maximumRequestBodySize is \(limit) bytes; a size must be 0 or more.")
        }
        var length: Int64?
        if case .known(let known) = body.length {
            guard known <= limit else { throw tooLarge(operationID, limit: limit, length: known) }
            length = known
        }
        var bytes = Data(capacity: Int(length ?? 0))
        do {
            for try await chunk in body {
                guard bytes.count + chunk.count <= limit else { throw tooLarge(operationID, limit: limit, length: nil) }
                bytes.append(contentsOf: chunk)
            }
        } catch let error as CourierError {
            throw error
        } catch let error as CancellationError {
            throw CourierError(.cancelled, "The request \(operationID) was cancelled while its body was read.", underlyingError: error)
        } catch {
            throw CourierError(.invalidRequest, "The body of \(operationID) could not be read: \(error)", underlyingError: error)
        }
        return bytes
    }

    private static func tooLarge(_ operationID: String, limit: Int, length: Int64?) -> CourierError {
        let size = length.map { "\($0) bytes" } ?? "more than that"
        return CourierError(
            .invalidRequest,
            "The body of \(operationID) is \(size); the transport sends at most \(limit) bytes (its maximumRequestBodySize). Raise it, or send the file with Courier's upload(_:parts:).")
    }

    /// A response for generated code: the status, the headers HTTP allows, and the body (none when empty).
    static func answer(status: Int, headers: HTTPHeaders, body: Data) -> (HTTPResponse, HTTPBody?) {
        var fields = HTTPFields()
        for field in headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return (HTTPResponse(status: .init(code: status), headerFields: fields), body.isEmpty ? nil : HTTPBody(body))
    }
}
