import Courier
import CourierTesting
import Foundation

// The code of the "Recording and replaying HTTP" article, compiled; `DocExamplesTests` runs it
// against the sample server, then with the server stopped.

/// The sample document, recorded into `cassettes/sample.har` on the first run and replayed after.
func sampleUserName(baseURL: URL, cassettes: URL) async throws -> String? {
    let cassette = try Cassette(file: cassettes.appendingPathComponent("sample.har"))   // mode .once
    let transport = RecordingTransport(wrapping: URLSessionTransport())
    let client = APIClient(baseURL: baseURL, transport: transport)
    let sample = try await cassette.use {
        try await client.send(Request<JSONValue>(.get, "sample")).value
    }
    return sample["user_name"]?.stringValue
}

/// A cassette that keeps an API key, passwords and the client's authentication headers out of its file.
func redactedCassette(file: URL, client: APIClient) throws -> Cassette {
    var redaction = CassetteRedaction.standard(for: client.configuration)
    redaction.queryParameters = ["api_key"]
    redaction.bodyFields = ["password", "refresh_token"]
    return try Cassette(file: file, mode: .once, redaction: redaction)
}

/// A client that answers only from `file`: bodies compared too, the last answer repeated.
func replayOnlyClient(file: URL, baseURL: URL) throws -> APIClient {
    var matching = CassetteMatching.methodAndURL
    matching.comparesBody = true
    matching.headers = ["Accept-Language"]
    matching.repeatsLastAnswer = true
    let replay = try Cassette(file: file, mode: .none, matching: matching)
    return APIClient(baseURL: baseURL, transport: ReplayTransport(cassette: replay))
}

/// What a request the cassette has no answer for says.
func missMessage(client: APIClient) async -> String? {
    do {
        _ = try await client.send(Request<JSONValue>(.get, "not-recorded"))
        return nil
    } catch where error.kind == .cassetteMiss {
        return error.message   // the request, the closest recorded entry and how they differ
    } catch {
        return nil
    }
}
