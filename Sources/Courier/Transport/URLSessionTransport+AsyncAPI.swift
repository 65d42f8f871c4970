import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Runs the request through `data(for:delegate:)` / `upload(for:from:delegate:)`, which hand
    /// back the response without a hop through the delegate queue. Task cancellation cancels the
    /// request; URLSession enforces the timeout.
    func sendThroughAsyncAPI(_ urlRequest: URLRequest, request: TransportRequest) async throws -> TransportResponse {
        let body = request.body.flatMap { $0.isEmpty ? nil : $0 }
        var bodyFile: URL?
        defer { bodyFile.map { try? FileManager.default.removeItem(at: $0) } }
        do {
            let (data, response) = if let stream = request.bodyStream {
                // A streamed body goes to URLSession as a file, written a chunk at a time.
                try await session.upload(for: urlRequest, fromFile: try Self.spool(stream, into: &bodyFile), delegate: nil)
            } else if let body {
                try await session.upload(for: urlRequest, from: body, delegate: nil)
            } else {
                try await session.data(for: urlRequest, delegate: nil)
            }
            guard let http = response as? HTTPURLResponse else {
                throw CourierError(.transport, "The server's answer was not an HTTP response.", url: request.url)
            }
            return TransportResponse(url: http.url ?? request.url, statusCode: http.statusCode, headers: Self.headers(of: http), body: data)
        } catch {
            if Task.isCancelled { throw CourierError.cancelled(request.url) }
            throw Self.courierError(for: error, request: request)
        }
    }

    /// Writes a streamed body to a temporary file (removed by the caller, also on cancellation).
    static func spool(_ body: StreamedBody, into file: inout URL?) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString)")
        file = url
        do {
            try body.write(to: url)
        } catch {
            throw CourierError(.encodingFailed, "The upload body could not be prepared: \(error.localizedDescription)", underlyingError: error)
        }
        return url
    }
}
