import Courier
import Foundation

/// An ``Courier/HTTPTransport`` that answers from canned responses, for testing code that uses
/// Courier without a server.
///
/// ```swift
/// let stub = StubTransport()
/// stub.stub(.get, "/v1/me", json: #"{"name": "Ana"}"#)
/// let client = APIClient(baseURL: URL(string: "https://api.test")!, apiPath: "v1", transport: stub)
/// ```
///
/// Requests that match no stub get a 404 with a plain-text body naming the request. Every request
/// is recorded in ``requests``.
public final class StubTransport: HTTPTransport {
    /// Produces a response for a matched request.
    public typealias Responder = @Sendable (TransportRequest) async throws -> StubResponse

    private struct Entry {
        let method: HTTPMethod?
        let path: String
        let respond: Responder
    }

    private let entries = Locked<[Entry]>([])
    private let received = Locked<[TransportRequest]>([])

    /// Creates a transport with no stubs.
    public init() {}

    /// Answers requests whose method is `method` (any method when `nil`) and whose URL path is
    /// `path` with what `respond` returns. Later stubs take precedence over earlier ones.
    public func stub(_ method: HTTPMethod? = nil, _ path: String, respond: @escaping Responder) {
        entries.withLock { $0.append(Entry(method: method, path: path, respond: respond)) }
    }

    /// Answers matching requests with a fixed response.
    public func stub(_ method: HTTPMethod? = nil, _ path: String, response: StubResponse) {
        stub(method, path) { _ in response }
    }

    /// Answers matching requests with a JSON body.
    public func stub(_ method: HTTPMethod? = nil, _ path: String, status: Int = 200, json: String) {
        stub(method, path, response: StubResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8)))
    }

    /// Every request received so far, in order.
    public var requests: [TransportRequest] { received.withLock { $0 } }

    /// Removes every stub and recorded request.
    public func reset() {
        entries.withLock { $0.removeAll() }
        received.withLock { $0.removeAll() }
    }

    /// Answers from the matching stub, reporting progress as a real transport would.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        received.withLock { $0.append(request) }
        if Task.isCancelled { throw CourierError(.cancelled, "The request was cancelled.", url: request.url) }
        let entry = entries.withLock { entries in
            entries.last { ($0.method == nil || $0.method == request.method) && $0.path == request.url.path }
        }
        if let size = request.body?.count, size > 0 {
            observer.upload?(TransferProgress(completed: Int64(size), total: Int64(size)))
        }
        guard let entry else {
            let text = "No stub for \(request.method) \(request.url.path)"
            return TransportResponse(url: request.url, statusCode: 404, headers: ["Content-Type": "text/plain"], body: Data(text.utf8))
        }
        let stubbed = try await entry.respond(request)
        observer.download?(TransferProgress(completed: Int64(stubbed.body.count), total: Int64(stubbed.body.count)))
        return TransportResponse(url: request.url, statusCode: stubbed.status, headers: stubbed.headers, body: stubbed.body)
    }
}
