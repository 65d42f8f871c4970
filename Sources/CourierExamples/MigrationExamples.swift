import Courier
import CourierStore
import Dispatch
import Foundation

// The code of the "Migrating from seed 000…004" articles, compiled; `DocExamplesTests` runs it
// against the sample server.

/// The seed's constants: a base URL and an API path every request path is joined to.
func usersPath(baseURL: URL) async throws -> String {
    let client = APIClient(configuration: ClientConfiguration(baseURL: baseURL, apiPath: "/echo/api/v1/"))
    let echo = try await client.send(Request<Echo>(.get, "users")).value
    return echo.path                                                // "/echo/api/v1/users"
}

/// The seed's simplified method: one callback with the value, the error and `fromCache`.
func createUser(client: APIClient, done: @escaping @Sendable (JSONValue?, CourierError?, Bool) -> Void) {
    client.request(Request<JSONValue>(.post, "echo/users", body: ["user": "jota", "age": 33], cache: .networkOnly)) { response, error, cache in
        done(response, error, cache)
    }
}

/// The seed's complete method: another base URL, an extra header, a photo, progress both ways.
func uploadPhoto(_ photo: Data, client: APIClient, otherBaseURL: URL) async throws -> Echo {
    var request = Request<Echo>(.post, "echo/upload", body: ["photo": .data(photo)], headers: ["X-Extra": "1"])
    request.baseURL = otherBaseURL
    request.uploadProgress = { progress in print("sent \(progress.completed) bytes") }
    request.downloadProgress = { progress in print("received \(progress.completed) bytes") }
    return try await client.send(request).value
}

/// A request cancelled through its task: the callback runs once, with a cancellation.
func startAndCancel(client: APIClient, done: @escaping @Sendable (CourierError?) -> Void) -> RequestTask {
    let task = client.request(Request<Data>(.get, "delay/10000")) { _, error, _ in
        done(error)                                                 // error.isCancelled, error.requestID == task.id
    }
    task.cancel()
    return task
}

/// An untyped response, whatever its shape: an object, an array, or text (an HTML page).
func describe(path: String, client: APIClient) async throws -> String {
    let value = try await client.send(Request<JSONValue>(.get, path)).value
    if let name = value["user_name"]?.stringValue { return "user \(name)" }
    if let items = value.arrayValue { return "\(items.count) items" }
    return value.stringValue ?? "nothing"                           // "<html>…" for a page
}

/// The seed's subclasses, as a group: its requests share an API path and body parameters.
func updateProfile(client: APIClient) async throws -> (update: Echo, show: Echo) {
    let user = RequestGroup(apiPath: "echo/user", bodyParameters: ["email": "ana@example.com"])
    let update = try await client.send(user.request(.patch, "profile", body: ["name": "Ana"], as: Echo.self)).value
    let show = try await client.send(user.request(.get, "profile", as: Echo.self)).value
    return (update, show)       // body {"email":"ana@example.com","name":"Ana"}; query email=ana%40example.com
}

/// A group on another host: the password change goes to the authentication service.
func changePassword(client: APIClient, authenticationURL: URL) async throws -> Echo {
    let authentication = RequestGroup(baseURL: authenticationURL, apiPath: "echo/api/v1", bodyParameters: ["email": "ana@example.com"])
    return try await client.send(authentication.request(.post, "password", body: ["new": "s3cret"], as: Echo.self)).value
}

/// The seed's request identifier: the task's id is the response's (and an error's).
func resetPassword(client: APIClient, done: @escaping @Sendable (Result<Response<Echo>, CourierError>) -> Void) -> RequestID {
    var request = Request<Echo>(.post, "users/reset-password", body: ["email": "ana@example.com"])
    request.apiPath = "echo/v2"
    let task = client.request(request) { result in done(result) }  // response.requestID == task.id
    return task.id
}

/// Offline mode: a request the server cannot answer is answered from the cache.
func hobbies(client: APIClient) async throws -> (names: [String], source: ResponseSource) {
    let response = try await client.send(Request<JSONValue>(.get, "documents/hobbies").offlineMode(true))
    let names = response.value["hobbies"]?.arrayValue?.compactMap(\.stringValue) ?? []
    return (names, response.source)                                 // .network, or .offlineCache when unreachable
}

/// Callbacks run on the client's queue (`configuration.callbackQueue`), or on one a request names.
func loadOnQueues(client: APIClient, queue: DispatchQueue, onClientQueue: @escaping @Sendable () -> Void, onGivenQueue: @escaping @Sendable () -> Void) {
    client.request(Request<Data>(.get, "sample")) { _ in onClientQueue() }
    client.request(Request<Data>(.get, "sample").callback(on: queue)) { _ in onGivenQueue() }
}

/// An error your API reports in a 200 body.
struct CustomAPIError: Error {
    let code: Int
    let message: String
}

/// The seed's hooks: an API that answers 200 with an error code, and an observer of every failure.
final class Hooks: APIClientDelegate {
    let report: @Sendable (ErrorClassification) -> Void

    init(report: @escaping @Sendable (ErrorClassification) -> Void) { self.report = report }

    func client(_ client: APIClient, errorFor response: TransportResponse, request: TransportRequest) async -> (any Error)? {
        guard let code = response.bodyValue.json?["error_code"]?.intValue else { return nil }
        return CustomAPIError(code: code, message: response.bodyValue.json?["error_message"]?.stringValue ?? "")
    }

    func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async {
        report(error.classification)                                // to your analytics, for example
    }
}

/// A missing image: the callback gets the server's message, classified `.notFound`.
func loadMissingImage(client: APIClient, show: @escaping @Sendable (String) -> Void) {
    client.request(Request<JSONValue>(.get, "images/0")) { result in
        if case .failure(let error) = result, error.classification == .notFound {
            show(error.userMessage)                                 // "Image 0 was not found."
        }
    }
}

/// The seed's custom error handler: a 422's whole body as the message, else the usual one.
func makeClientShowing422Bodies(baseURL: URL) -> APIClient {
    var configuration = ClientConfiguration(baseURL: baseURL)
    configuration.errorHandling = ErrorHandling(messageExtractor: { error in
        error.statusCode == 422 ? error.bodyText : ErrorHandling.defaultMessage(in: error)
    })
    return APIClient(configuration: configuration)
}

/// An image of the sample server.
struct Image: Codable, Sendable, Identified {
    var id: Int
    var title: String
    var mimeType: String
    var uid: Int { id }
}

/// One object under `object`, whether the body is JSON or XML.
func loadObject(named name: String, client: APIClient) async throws -> Image {
    try await client.send(Request<Image>(.get, "documents/\(name)").decoding(at: "object")).value
}

/// Images from an XML list, stored in a local database; their titles.
func storeImages(client: APIClient) async throws -> [String] {
    let store = try CourierStore.inMemory()
    let summary = try await client.send(Request<Data>(.get, "images", query: ["type": "xml"]), into: store, as: Image.self, root: "images")
    print("\(summary.inserted) new images")
    return try await store.models(Image.self).map(\.title)
}

/// An upload as a list of parts, as seed 003's list of upload tasks: text fields and an image.
func uploadKite(photo: Data, client: APIClient) async throws -> Image {
    let upload = Request<Image>(.post, "images", body: .multipart([
        .text("title", "Kite"),
        .text("description", "Praia do Futuro"),
        .data("image", photo, fileName: "kite.png"),
    ]))
    return try await client.send(upload).value
}
