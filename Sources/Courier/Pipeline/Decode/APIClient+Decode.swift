import Foundation

extension APIClient {
    /// Decodes a response into the request's value type.
    func decode<Value>(
        _ response: TransportResponse, for request: Request<Value>, id: RequestID, start: ContinuousClock.Instant,
        source: ResponseSource
    ) throws(CourierError) -> Response<Value> {
        let context = SerializationContext(
            statusCode: response.statusCode, headers: response.headers, decoder: request.decoder ?? configuration.decoder)
        let value: Value
        do {
            value = try request.serializer.serialize(response.body, context)
        } catch {
            var failure = CourierError(
                .decodingFailed, "The response to \(request.method) \(response.url.path) could not be read as \(Value.self): \(DecodingErrorText.describe(error))",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
                underlyingError: error)
            failure.keyPath = DecodingErrorText.keyPath(of: error)
            throw failure
        }
        return Response(
            value: value, statusCode: response.statusCode, headers: response.headers, data: response.body,
            url: response.url, source: source, requestID: id, duration: ContinuousClock.now - start)
    }

    /// The error for a response a delegate hook turned into one.
    func rejected(_ response: TransportResponse, by rejection: any Error) -> CourierError {
        if var error = rejection as? CourierError {
            error.url = error.url ?? response.url
            return error
        }
        return CourierError(
            .rejected, "The response to \(response.url.path) was rejected: \(rejection.localizedDescription)",
            url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body,
            underlyingError: rejection)
    }

    /// The error for a response whose status is not acceptable.
    func statusFailure(_ response: TransportResponse, method: HTTPMethod) -> CourierError {
        CourierError(
            .httpStatus(response.statusCode),
            "The server answered \(response.statusCode) (\(HTTPStatus.reason(response.statusCode))) to \(method) \(response.url.path).",
            url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
    }
}

extension TransportResponse {
    /// Whether this is a 304 to a conditional request the caller made itself (its own
    /// `If-None-Match` or `If-Modified-Since`, not Courier's revalidation of a cached entry): the
    /// caller asked "has it changed?", and "no" is an answer, not an error. Its body is empty.
    func answersCallersOwnCondition(_ request: TransportRequest, revalidating: Bool) -> Bool {
        statusCode == 304 && !revalidating
            && (request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since"))
    }
}
