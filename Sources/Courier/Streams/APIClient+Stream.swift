import Foundation

extension APIClient {
    /// Sends `request` and returns as soon as the response head has arrived, with the body to read
    /// as it arrives (``ResponseStream``): bytes, lines, newline-delimited JSON or Server-Sent
    /// Events.
    ///
    /// Everything of ``send(_:)`` applies up to the head: credentials, a refresh after a 401,
    /// retries before an answer, hooks, redirects, status checks (a status the client does not
    /// accept throws as usual, with its body read up to the size limit), metrics and tracing. The
    /// response cache and the sharing of identical requests do not: every call is its own exchange.
    /// ``ClientConfiguration/timeout`` (or the request's) is the longest the stream may go quiet.
    public func stream(_ request: Request<Data>) async throws(CourierError) -> ResponseStream {
        try await recorded(request.settings, streamsBody: true) { record throws(CourierError) in
            let response = try await perform(request.settings, record: &record)
            notifyAnswer(from: response.url)
            // The record stays open until the reader is done with the body.
            return ResponseStream(
                statusCode: response.statusCode, headers: response.headers, url: response.url, requestID: record.id,
                decoder: request.decoder ?? configuration.decoder,
                body: response.liveBody ?? LiveBody(whole: response.body, url: response.url),
                record: StreamRecord(client: self, record: record, response: response))
        }
    }
}
