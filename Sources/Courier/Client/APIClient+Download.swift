import Foundation

extension APIClient {
    /// Downloads the response body of `request` into `destination` (replacing the file there),
    /// streamed to disk so memory stays bounded whatever the size; download progress is reported
    /// as the bytes arrive. Redirects,
    /// credentials, hooks and status checks work as for ``send(_:)``; the cache is not used.
    ///
    /// - Returns: a response whose value is `destination` and whose `data` is empty.
    /// - Throws: ``CourierError``; a non-2xx status carries its (small) body as usual and leaves
    ///   `destination` untouched.
    public func download(_ request: Request<Data>, to destination: URL) async throws(CourierError) -> Response<URL> {
        let id = RequestID.next()
        var settings = request.settings
        settings.downloadDestination = destination
        settings.maximumResponseSize = nil
        var record = beginRecord(settings, id: id)
        do throws(CourierError) {
            var response = try await download(settings, to: destination, id: id, record: &record)
            response.metrics = finish(&record, source: .network, statusCode: response.statusCode)
            return response
        } catch {
            throw await report(finish(&record, failure: error), record: record, settings: settings)
        }
    }

    private func download(
        _ settings: RequestSettings, to destination: URL, id: RequestID, record: inout RequestRecord
    ) async throws(CourierError) -> Response<URL> {
        let response = try await perform(settings, id: id, record: &record)
        if response.bodyFile == nil {
            // The transport kept the body in memory (a custom transport): write it now.
            do {
                try response.body.write(to: destination, options: .atomic)
            } catch {
                throw complete(
                    CourierError(.transport, "The download could not be written to \(destination.path): \(error.localizedDescription)",
                                 url: response.url, underlyingError: error),
                    id: id, record: record)
            }
        }
        return Response(
            value: destination, statusCode: response.statusCode, headers: response.headers, data: Data(), url: response.url,
            source: .network, requestID: id, duration: ContinuousClock.now - record.start)
    }
}
