import Courier
import Foundation

/// An ``Courier/HTTPTransport`` that records the exchanges of the transport it wraps into a
/// ``Cassette`` and replays them, as the cassette's ``Cassette/RecordMode`` says.
///
/// ```swift
/// let transport = RecordingTransport(wrapping: URLSessionTransport())
/// let client = APIClient(baseURL: baseURL, transport: transport)
/// let cassette = try Cassette(file: fixtures.appendingPathComponent("login.har"), redaction: .standard(for: client.configuration))
/// try await cassette.use { try await signIn(client) }
/// ```
///
/// Made without a cassette, it uses the current task's (``Cassette/use(_:)``); a request sent with
/// neither fails with ``CourierError/Kind/cassetteInvalid`` and is not sent. Responses reach the
/// app as the server sent them; the cassette keeps them redacted. A request that fails without a
/// response (a refused connection, a timeout) is not recorded.
public struct RecordingTransport: HTTPTransport {
    /// The transport that sends what is not replayed.
    public let base: any HTTPTransport
    /// The cassette given at creation, if any.
    public let cassette: Cassette?

    /// Records through `base` into `cassette`, or into the current task's when `nil`.
    public init(wrapping base: any HTTPTransport, cassette: Cassette? = nil) {
        self.base = base
        self.cassette = cassette
    }

    /// Replays the recorded answer to `request`, or sends it through ``base`` and records it: the
    /// callback exchange (``start(_:observer:completion:)``) awaited, cancelled with the task.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        try await ExchangeControl.send(request) { start(request, observer: observer, completion: $0) }
    }
}
