import Courier
import Foundation

/// An ``Courier/HTTPTransport`` that answers only from a ``Cassette`` and never touches the
/// network, whatever the cassette's mode: a request not recorded fails with
/// ``CourierError/Kind/cassetteMiss``.
///
/// ```swift
/// let cassette = try Cassette(file: fixtures.appendingPathComponent("images.har"), mode: .none)
/// let client = APIClient(baseURL: baseURL, transport: ReplayTransport(cassette: cassette))
/// ```
public struct ReplayTransport: HTTPTransport {
    /// The cassette given at creation, if any.
    public let cassette: Cassette?

    /// Replays from `cassette`, or from the current task's (``Cassette/use(_:)``) when `nil`.
    public init(cassette: Cassette? = nil) {
        self.cassette = cassette
    }

    /// Answers `request` from the cassette.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        try Cassette.chosen(cassette, for: request).replay(request, observer: observer)
    }
}

extension Cassette {
    /// The recorded answer to `request`, never the network.
    func replay(_ request: TransportRequest, observer: TransferObserver) throws(CourierError) -> TransportResponse {
        switch plan(for: request, canRecord: false) {
        case .replay(let entry, let shownURL): return try entry.answer(request, shownURL: shownURL, observer: observer)
        case .miss(let error): throw error
        case .record: throw CourierError(.cassetteMiss, "A replay cannot record \(request.method) \(request.url.path). Nothing was sent.")
        }
    }

    /// `given`, else the current task's cassette, else an error naming the request (its URL path only).
    static func chosen(_ given: Cassette?, for request: TransportRequest) throws(CourierError) -> Cassette {
        if let cassette = given ?? current { return cassette }
        throw CourierError(
            .cassetteInvalid,
            "No cassette for \(request.method) \(request.url.path): give the transport one, or send inside cassette.use { … }. Nothing was sent.")
    }
}
