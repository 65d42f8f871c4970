import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension APIClientTransport {
    /// Sends `request` as a download to a temporary file and answers with a body read from it.
    func download(_ request: Request<Data>, settings: OperationSettings) async throws -> (HTTPResponse, HTTPBody?) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-openapi-\(UUID().uuidString).download")
        let outcome: Result<Response<URL>, CourierError>
        do {
            outcome = .success(try await client.download(request, to: file))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let response):
            let (head, _) = try Self.answer(status: response.statusCode, headers: response.headers, body: Data())
            return (head, try Self.streaming(response.value))
        case .failure(let error):
            try? FileManager.default.removeItem(at: file)
            guard settings.returnsErrorResponses == true, let status = error.statusCode else { throw error }
            return try Self.answer(status: status, headers: error.headers ?? [:], body: error.body ?? Data())
        }
    }

    /// A body read from `file` in 64 KiB chunks, once. The file is removed at once: the open handle
    /// keeps its bytes readable, and the system frees them when the handle closes (at the end, or
    /// when the body goes away unread).
    static func streaming(_ file: URL) throws(CourierError) -> HTTPBody {
        let handle: FileHandle
        let length: UInt64
        do {
            handle = try FileHandle(forReadingFrom: file)
            length = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw CourierError(.transport, "The downloaded body at \(file.path) could not be read back: \(error)", underlyingError: error)
        }
        try? FileManager.default.removeItem(at: file)
        let chunks = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> {
            guard let data = try handle.read(upToCount: 64 << 10), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            return ArraySlice(data)
        }
        return HTTPBody(chunks, length: .known(Int64(length)))
    }
}
