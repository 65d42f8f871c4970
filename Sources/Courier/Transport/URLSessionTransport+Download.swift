import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// `download(for:delegate:)`, when no download progress is observed (with progress, a
    /// delegate-driven data task writes the body itself and reports each piece): URLSession writes the body
    /// to a file of its own, which is moved to `destination` for a 2xx response; any other
    /// response's body is read back into memory.
    func downloadThroughAsyncAPI(
        _ urlRequest: URLRequest, request: TransportRequest, to destination: URL, observer: TransferObserver
    ) async throws -> TransportResponse {
        do {
            let (file, response) = try await session.download(for: urlRequest, delegate: nil)
            defer { try? FileManager.default.removeItem(at: file) }
            guard let http = response as? HTTPURLResponse else {
                throw CourierError(.transport, "The server's answer was not an HTTP response.", url: request.url)
            }
            var result = TransportResponse(url: http.url ?? request.url, statusCode: http.statusCode, headers: Self.headers(of: http))
            if (200..<300).contains(http.statusCode) {
                try FileReplacement.replace(destination, with: file)
                let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value ?? 0
                observer.download?(TransferProgress(completed: size, total: size))
                result.bodyFile = destination
            } else {
                result.body = (try? Data(contentsOf: file)) ?? Data()
            }
            return result
        } catch let error as CourierError {
            throw error
        } catch {
            if Task.isCancelled { throw CourierError.cancelled(request.url) }
            throw Self.courierError(for: error, request: request)
        }
    }
}
