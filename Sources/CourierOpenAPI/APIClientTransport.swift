import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's requests through an
/// ``Courier/APIClient``: the generated `Client` gets the client's cache options, offline mode,
/// revalidation, authentication headers (captured, injected, refreshed once on 401), error
/// classification and presentation, retries with `Retry-After`, in-flight deduplication, metrics
/// and tracing, on whichever Courier transport the client uses.
///
/// ```swift
/// let api = APIClient(configuration: configuration)
/// var list = OperationSettings()
/// list.cacheOption = .both
/// let client = Client(
///     serverURL: configuration.baseURL,
///     transport: APIClientTransport(client: api, operations: ["listImages": list]))
/// let images = try await client.listImages().ok.body.json.images
/// ```
///
/// Each operation's request is a Courier request named by its `operationId` (the name metrics and
/// spans carry), with the operation's ``OperationSettings`` over ``defaults``. An answer with an
/// error status is thrown as a ``Courier/CourierError``, which the generated code wraps in its
/// `ClientError` (read it back with ``OpenAPIRuntime/ClientError/courierError``), unless the
/// operation's settings return error responses to the generated code.
///
/// Request bodies are read before sending, so a retry or a redirect can send them again: in memory
/// up to 1 MiB, and a longer one written to a temporary file as it is read and streamed from
/// there (memory stays bounded), up to ``maximumRequestBodySize``. Response bodies come back
/// whole, within the client's ``Courier/ClientConfiguration/maximumResponseSize``, or, for an
/// operation whose settings say ``OperationSettings/downloadsToFile``, streamed to a temporary
/// file and read from there.
public struct APIClientTransport: ClientTransport {
    /// The client every request goes through.
    public let client: APIClient
    /// The settings of operations that ``operations`` does not name, and of their `nil` settings.
    public var defaults: OperationSettings
    /// Settings by `operationId`.
    public var operations: [String: OperationSettings]
    /// The largest request body sent, in bytes (64 MiB unless set): a larger one fails with
    /// ``Courier/CourierError/Kind/invalidRequest`` before anything is sent.
    public var maximumRequestBodySize: Int = 64 << 20

    /// A transport through `client`, with `defaults` for every operation and `operations` by `operationId`.
    public init(client: APIClient, defaults: OperationSettings = OperationSettings(), operations: [String: OperationSettings] = [:]) {
        self.client = client
        self.defaults = defaults
        self.operations = operations
    }

    /// The settings `operationID` is sent with: its own over ``defaults``.
    public func settings(for operationID: String) -> OperationSettings {
        operations[operationID].map { $0.over(defaults) } ?? defaults
    }

    /// Sends `request` through ``client`` and gives back the answer (see the type's description).
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let settings = settings(for: operationID)
        var (courierRequest, spooled) = try await makeRequest(request, body: body, baseURL: baseURL, operationID: operationID)
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled) } }
        settings.apply(to: &courierRequest)
        if settings.downloadsToFile == true { return try await download(courierRequest, settings: settings) }
        let outcome: Result<Response<Data>, CourierError>
        do {
            outcome = .success(try await client.send(courierRequest))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let response):
            return try Self.answer(status: response.statusCode, headers: response.headers, body: response.data)
        case .failure(let error):
            // An error status goes to the generated code when the operation asks for it; any other failure is thrown.
            guard settings.returnsErrorResponses == true, let status = error.statusCode else { throw error }
            return try Self.answer(status: status, headers: error.headers ?? [:], body: error.body ?? Data())
        }
    }
}
