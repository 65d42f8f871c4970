import Courier
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

extension SeedExamples {
    /// Seed 003: `MJApiClient`, a configured client, `MJApiRequest` / `MJApiUploadRequest`, request
    /// identifiers, offline cache management, completion queues and a delegate for errors. Each test
    /// is named after the seed's numbered section and runs its example against the sample server.
    @Suite struct Seed003MJApiClientTests {
        /// An image as the sample server describes it.
        struct Image: Decodable, Sendable {
            var uid: Int
            var title: String
            var mimeType: String
            var size: Int
        }

        /// "1.1 Definining the instance": `initWithConfigurator:` with `host` and `apiPath` is a
        /// `ClientConfiguration` value (no configurator block: a struct is configured in place).
        @Test func definingTheInstance() async throws {
            try await withServer { server in
                var configuration = ClientConfiguration(baseURL: server.baseURL)
                configuration.apiPath = "/echo/api/v1"
                let client = APIClient(configuration: configuration)
                let echo = try await client.send(Request<EchoReply>(.get, "users")).value
                #expect(echo.path == "/echo/api/v1/users")
            }
        }

        /// "1.2 Creating requests": `requestWithPath:`, `HTTPMethod` (GET unless set) and
        /// `parameters`, here the seed's `PUT users/hobbies`.
        @Test func creatingRequests() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport(), apiPath: "echo")
                var request = Request<EchoReply>(.get, "users/hobbies")
                request.method = .put
                request.body = ["name": "kitesurfing", "rating": 8]
                let echo = try await client.send(request).value
                #expect(echo.method == "PUT" && echo.bodyText == #"{"name":"kitesurfing","rating":8}"#)
            }
        }

        /// "1.2 … upload requests": an `MJApiUploadRequest` with a list of `MJApiUploadTask`s, POST
        /// by default, is a `.multipart` body: a list of `MultipartPart`s.
        @Test func uploadRequestWithAListOfUploadTasks() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let upload = Request<Image>(.post, "images", body: .multipart([
                    .text("title", "Kite"),
                    .text("description", "Praia do Futuro"),
                    .data("image", SeedFixtures.png, fileName: "kite.png"),
                ]))
                #expect(upload.method == .post)
                let image = try await client.send(upload).value
                #expect(image.title == "Kite" && image.mimeType == "image/png" && image.size == SeedFixtures.png.count)
            }
        }

        /// "1.3 Performing requests": `performRequest:completionBlock:` returns the request's
        /// identifier and the block gets it again beside the response; `performRequest:apiPath:`
        /// takes another API path for one request. The `MJApiResponse` with an `error` inside is
        /// Swift's `Result`.
        @Test func performingRequestsReturnsAnIdentifier() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport(), apiPath: "echo/v1")
                var request = Request<EchoReply>(.post, "users/reset-password", body: ["email": "ana@example.com"])
                request.apiPath = "echo/v2"
                let calls = CallbackRecorder<Result<Response<EchoReply>, CourierError>>()
                let identifier = client.request(request) { calls.record($0) }.id
                let result = try #require(await calls.next().first)
                let response = try result.get()
                #expect(response.requestID == identifier)
                #expect(response.value.path == "/echo/v2/users/reset-password")
            }
        }

        /// "1.4 Managing the URL Cache": `MJApiClientCacheManagementOffline` answers from the cache when
        /// offline; `MJApiClientCacheManagementDefault` does not. Courier's `offlineMode` uses its own
        /// response cache (per user, checksummed) rather than `URLCache`.
        @Test func managingTheURLCacheForOffline() async throws {
            try await withTemporaryCache { cache, _ in
                let server = try await ImageStoreServer.instrumented(.holdable())
                let offline = server.client(URLSessionTransport()) {
                    $0.cache = cache
                    $0.offlineMode = true
                }
                let byDefault = server.client(URLSessionTransport()) { $0.cache = cache }
                try await SeedFixtures.put(#"{"hobbies":["kitesurfing"]}"#, as: "hobbies", on: offline)
                let hobbies = Request<JSONValue>(.get, "documents/hobbies")
                #expect(try await offline.send(hobbies).source == .network)
                try await server.stopHoldingPort()
                defer { server.releasePort() }
                let answer = try await offline.send(hobbies)
                #expect(answer.source == .offlineCache && answer.value["hobbies"]?[0]?.stringValue == "kitesurfing")
                let error = await #expect(throws: CourierError.self) { try await byDefault.send(hobbies) }
                #expect(error?.classification == .cannotConnect)
            }
        }

        /// "1.5 Response dispatch queue": a queue per request (`completionBlockQueue`), else the
        /// client's (the configurator's `completionBlockQueue`).
        @Test func responseDispatchQueuePerRequestAndGlobal() async throws {
            let key = DispatchSpecificKey<String>()
            let global = DispatchQueue(label: "com.myapp.api.completion-queue")
            let perRequest = DispatchQueue(label: "per-request", attributes: .concurrent)
            global.setSpecific(key: key, value: "global")
            perRequest.setSpecific(key: key, value: "per-request")
            try await withServer { server in
                let client = server.client(URLSessionTransport()) { $0.callbackQueue = global }
                let queues = CallbackRecorder<String?>()
                client.request(Request<Data>(.get, "sample")) { _ in queues.record(DispatchQueue.getSpecific(key: key)) }
                #expect(await queues.next() == ["global"])
                client.request(Request<Data>(.get, "sample").callback(on: perRequest)) { _ in queues.record(DispatchQueue.getSpecific(key: key)) }
                #expect(await queues.next() == ["per-request"])
            }
        }

        /// "1.6 Error Handling": `apiClient:errorForResponseBody:httpResponse:incomingError:` turns a
        /// body with `error_code` into an error, and `apiClient:didReceiveErrorInResponse:` sees every
        /// error, here to sign the user out on 401.
        @Test func errorForResponseBodyAndDidReceiveErrorInResponse() async throws {
            struct CustomAPIError: Error { let code: Int; let message: String }
            final class Hooks: APIClientDelegate {
                let seen = Locked<[ErrorClassification]>([])
                func client(_ client: APIClient, errorFor response: TransportResponse, request: TransportRequest) async -> (any Error)? {
                    guard let code = response.bodyValue.json?["error_code"]?.intValue else { return nil }
                    return CustomAPIError(code: code, message: response.bodyValue.json?["error_message"]?.stringValue ?? "")
                }
                func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async {
                    seen.withLock { $0.append(error.classification) }
                }
            }
            let hooks = Hooks()
            try await withServer { server in
                let client = server.client(URLSessionTransport()) { $0.delegate = hooks }
                try await SeedFixtures.put(#"{"error_code": 42, "error_message": "Quota exceeded"}"#, as: "quota", on: client)
                let rejected = await #expect(throws: CourierError.self) { try await client.send(Request<JSONValue>(.get, "documents/quota")) }
                #expect(rejected?.kind == .rejected && (rejected?.underlyingError as? CustomAPIError)?.code == 42)
                _ = try? await client.send(Request<JSONValue>(.get, "me"))
                #expect(hooks.seen.withLock { $0 } == [.other, .unauthorized])
            }
        }
    }
}
