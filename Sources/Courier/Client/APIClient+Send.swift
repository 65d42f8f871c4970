import Foundation
import Logging

extension APIClient {
    /// Sends `request` and returns its decoded response.
    ///
    /// Cancelling the calling task cancels the request, which then throws a
    /// ``CourierError/Kind/cancelled`` error.
    /// - Throws: ``CourierError`` for every failure: a bad URL or body, a transport failure, a status
    ///   outside ``ClientConfiguration/acceptableStatusCodes``, or a body that does not decode.
    public func send<Value>(_ request: Request<Value>) async throws(CourierError) -> Response<Value> {
        try await send(request, id: .next())
    }

    func send<Value>(_ request: Request<Value>, id: RequestID) async throws(CourierError) -> Response<Value> {
        let start = ContinuousClock.now
        var url: URL?
        do {
            var wire = try transportRequest(for: request)
            url = wire.url
            if let delegate = configuration.delegate {
                wire = try await delegate.client(self, willSend: wire)
            }
            let queue = request.callbackQueue ?? configuration.callbackQueue
            let upload = request.uploadProgress.map { ProgressRelay(handler: $0, queue: queue) }
            let download = request.downloadProgress.map { ProgressRelay(handler: $0, queue: queue) }
            let observer = TransferObserver(upload: upload.map { $0.report }, download: download.map { $0.report })
            let logger = configuration.logger
            logger.debug("Courier \(id) → \(wire.method) \(wire.url.absoluteString)")
            let response = try await exchange(wire, observer: observer)
            await upload?.flush()
            await download?.flush()
            logger.debug("Courier \(id) ← \(response.statusCode) \(response.url.absoluteString) \(response.body.count) bytes")
            if let delegate = configuration.delegate {
                await delegate.client(self, didReceive: response, for: wire)
            }
            return try decode(response, for: request, id: id, start: start)
        } catch {
            var failure = CourierError.wrap(error, url: url)
            if Task.isCancelled, failure.kind == .transport { failure = .cancelled(url) }
            failure.requestID = id
            throw failure
        }
    }

    private func decode<Value>(
        _ response: TransportResponse, for request: Request<Value>, id: RequestID, start: ContinuousClock.Instant
    ) throws(CourierError) -> Response<Value> {
        guard configuration.acceptableStatusCodes.contains(response.statusCode) else {
            throw CourierError(
                .httpStatus(response.statusCode),
                "The server answered \(response.statusCode) (\(HTTPStatus.reason(response.statusCode))) to \(request.method) \(response.url.path).",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
        }
        let context = SerializationContext(
            statusCode: response.statusCode, headers: response.headers, decoder: request.decoder ?? configuration.decoder)
        let value: Value
        do {
            value = try request.serializer.serialize(response.body, context)
        } catch {
            throw CourierError(
                .decodingFailed, "The response to \(request.method) \(response.url.path) could not be read as \(Value.self): \(DecodingErrorText.describe(error))",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
                underlyingError: error)
        }
        return Response(
            value: value, statusCode: response.statusCode, headers: response.headers, data: response.body,
            url: response.url, source: .network, requestID: id, duration: ContinuousClock.now - start)
    }
}
