// Every Swift block of README.md, verbatim, so that the README's examples compile.
// ReadmeTests checks that the two agree; change both together.

import Courier
import Foundation

struct Pizza: Decodable, Sendable {
    var pizzaId: Int
    var name: String
}

struct User: Decodable, Sendable {
    var id: String
    var userName: String
    var favoritePizza: Pizza
}

func quickStart(baseURL: URL) async throws {
    var configuration = ClientConfiguration(baseURL: baseURL, apiPath: "")
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    configuration.decoder = decoder
    let client = APIClient(configuration: configuration)

    // async/await: a typed value plus status, headers, request id and duration
    let response = try await client.send(Request<User>(.get, "sample"))
    print(response.value.userName, response.statusCode, response.requestID, response.metrics.duration)

    // body parameters and URL parameters on the same POST; JSON unless you choose another encoder
    let created = try await client.send(Request<JSONValue>(
        .post, "echo/users", query: ["invite": "abc"], body: ["name": "Ana", "tags": ["a", "b"]]))
    print(created.value)

    // errors are one typed error you can switch over
    do {
        _ = try await client.send(Request<JSONValue>(.get, "status/404"))
    } catch {
        if error.classification == .notFound { print("not found:", error.userMessage) }
    }
}

import Courier
import Dispatch
import Foundation

func download(with client: APIClient) -> RequestTask {
    var request = Request<Data>(.get, "bytes/1048576")
    request.callbackQueue = DispatchQueue(label: "downloads")      // per request; else the client's
    request.downloadProgress = { progress in
        print("\(progress.completed) of \(progress.total ?? -1) bytes")
    }
    let task = client.request(request) { result in                 // called exactly once
        switch result {
        case .success(let response): print("got \(response.value.count) bytes, request \(response.requestID)")
        case .failure(let error) where error.isCancelled: print("cancelled")
        case .failure(let error): print(error.message)
        }
    }
    print("started request \(task.id)")
    return task                                                     // task.cancel() reports .cancelled once
}

import Courier
import Foundation

struct SignUp: Encodable, Sendable {
    var email: String
    var password: String
}

func signUp(_ form: SignUp, with client: APIClient) async -> String {
    do {
        _ = try await client.send(Request<JSONValue>(.post, "users", body: .json(form)))
        return "Welcome!"
    } catch {
        if let fields = error.validationErrors {   // a 400 or 422 whose body had a known shape
            return fields.messages(for: "email").first.map { "E-mail \($0)" } ?? error.userMessage
        }
        switch error.classification {               // a value, not an enum: keep a default case
        case .offline, .timedOut, .cannotConnect:
            return "Try again when you are online."
        case .unauthorized:
            return "Please sign in."
        default:
            return error.userMessage        // from the body's "error"/"error_message"/"message", else a plain sentence
        }
    }
}

/// Seed 003's hooks: an API that answers 200 with an error code, and a global observer.
final class APIHooks: APIClientDelegate {
    struct APIFailure: Error { let code: Int }

    func client(_ client: APIClient, errorFor response: TransportResponse, request: TransportRequest) async -> (any Error)? {
        response.bodyValue.json?["error_code"]?.intValue.map { APIFailure(code: $0) }
    }

    func client(_ client: APIClient, didFailWith error: CourierError, request: TransportRequest?) async {
        if error.classification == .unauthorized { /* sign the user out */ }
    }
}

import Courier
import Foundation

struct ReSignIn: Authenticator {
    let email: String
    let password: String

    func refreshCredentials(using client: APIClient) async throws -> Bool {
        _ = try await client.send(Request<JSONValue>(.post, "auth/sign_in", body: ["email": .string(email), "password": .string(password)]))
        return true                                                  // retry the requests that got 401
    }
}

func makeSignedInClient(baseURL: URL) async throws -> APIClient {
    var configuration = ClientConfiguration(baseURL: baseURL)
    configuration.authenticationHeaders = ["access-token", "client", "uid", "expiry"]
    configuration.authenticator = ReSignIn(email: "demo@example.com", password: "password")
    let client = APIClient(configuration: configuration)
    if !client.isSignedIn {
        _ = try await client.send(Request<JSONValue>(.post, "auth/sign_in", body: ["email": "demo@example.com", "password": "password"]))
    }
    return client                                                    // client.logout() signs out
}

import Courier
import Foundation

struct MenuPizza: Codable, Sendable, Identified {  // equal by uid, as the seed's isEqual:
    var uid: Int
    var name: String
    var numberOfIngredients: Int?
}

func renamePizza(payload: Data) throws -> JSONValue {
    var mapped = try ModelDecoder().decodeMapped(MenuPizza.self, from: payload)
    mapped.model.name = "Calabresa"
    return try mapped.dictionaryRepresentation()    // the payload's own keys; absent keys stay absent
}

import Courier
import Foundation

struct Invoice: Decodable, Sendable {
    var id: Int
}

enum BillingAPI {
    /// Every request of the group goes to the billing host and carries the user's e-mail.
    static func group(email: String) -> RequestGroup {
        RequestGroup(
            baseURL: URL(string: "https://billing.example.com"), apiPath: "v2",
            headers: ["X-Client": "ios"], bodyParameters: ["email": .string(email)])
    }

    static func invoices(email: String) -> Request<[Invoice]> {
        group(email: email).request(.get, "invoices", query: ["page": 1])
    }

    static func pay(_ invoice: Invoice, email: String) -> Request<JSONValue> {
        group(email: email).request(.post, "invoices/\(invoice.id)/payments", body: ["method": "card"])
    }
}

import Courier
import CourierAsyncHTTPClient
import Foundation

func makeServerSideClient() -> (APIClient, AsyncHTTPClientTransport) {
    var settings = AsyncHTTPClientTransport.Configuration()
    settings.maximumConnectionsPerHost = 16
    settings.connectTimeout = .seconds(5)
    let transport = AsyncHTTPClientTransport(configuration: settings)   // call shutdown() when done
    let client = APIClient(baseURL: URL(string: "https://api.example.com")!, apiPath: "v1", transport: transport)
    return (client, transport)
}

import Courier
import Foundation

func showProfile(baseURL: URL, cachesURL: URL, show: (JSONValue, Bool) -> Void) async throws {
    var configuration = ClientConfiguration(baseURL: baseURL)
    configuration.cache = ResponseCache(directory: cachesURL)   // default: ResponseCache.shared
    configuration.cache?.memoryCapacity = 2 << 20               // seed: inMemoryCacheMaxSize; 1 MB by default
    configuration.offlineMode = true                             // unreachable network → cached answer
    let client = APIClient(configuration: configuration)

    // .both: the cached response first (if any), then the network's
    for try await response in client.responses(Request<JSONValue>(.get, "sample", cache: .both)) {
        show(response.value, response.fromCache)
    }
    // .cacheOnly: the cached response and no request, else the network
    let cached = try await client.send(Request<JSONValue>(.get, "sample", cache: .cacheOnly))
    print(cached.source)                                         // .cache, .network or .offlineCache
}

import Courier
import Foundation

struct StoredImage: Decodable, Sendable {
    var uid: Int                      // the store's "id"
    var title: String
    var mimeType: String
}

func uploadAndFetch(client: APIClient, photo: URL, saveTo: URL) async throws -> StoredImage {
    // Explicit parts (seed 003's upload request): POST by default, the file streamed from disk
    let upload = Request<StoredImage>(.post, "images", body: .multipart([
        .text("title", "Sunset"),
        .file("image", photo),                                      // MIME type from name or bytes
    ])).onUploadProgress { print("sent \($0.completed) of \($0.total ?? 0) bytes") }
    let image = try await client.send(upload).value

    // Automatic multipart: any binary parameter switches the body; nested names use brackets
    _ = try await client.send(Request<StoredImage>(.patch, "images/\(image.uid)", body: ["image": .file(photo)]))

    // Downloads go straight to a file, never whole in memory
    _ = try await client.download(Request<Data>(.get, "images/\(image.uid)/data"), to: saveTo)
    return image
}

import Courier
import Foundation

func makeResilientClient() -> APIClient {
    var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!, apiPath: "v1")
    // Up to 4 attempts; waits drawn from 0…0.5 s, 0…1 s, 0…2 s (or what Retry-After says); 20 s in all
    configuration.retryPolicy = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(500), budget: .seconds(20))
    return APIClient(configuration: configuration)
}

func submitOrder(client: APIClient) async throws {
    // A POST is retried only when it opts in: the server must be able to take it twice
    let order = Request<JSONValue>(.post, "orders", body: ["pizza": 5], headers: ["Idempotency-Key": UUID().uuidString])
        .retry(RetryPolicy(maximumAttempts: 3, retriesAnyMethod: true))
    do throws(CourierError) {
        let response = try await client.send(order)
        print(response.metrics.attempts, response.metrics.backoff)   // 1 and 0 s unless it was retried
    } catch {
        print(error.message)                  // "The server answered 503 (…) to POST /v1/orders. (3 attempts)"
        print(error.metrics?.attempts ?? 0)
    }
}

import Courier

func loadProfileEverywhere(client: APIClient) async throws {
    // Three parts of a screen ask at once: one GET goes out, and each gets its own response
    async let header = client.send(Request<JSONValue>(.get, "me"))
    async let menu = client.send(Request<JSONValue>(.get, "me"))
    async let avatar = client.send(Request<Data>(.get, "me"))
    let (a, b, c) = try await (header, menu, avatar)
    print([a, b].map(\.metrics.joinedSharedExchange), c.metrics.joinedSharedExchange)   // usually one false, the others true
    // Off for one request, or for the client with configuration.deduplicatesRequests = false;
    // .deduplicated() opts another method (a POST search, say) in
    _ = try await client.send(Request<JSONValue>(.get, "me").deduplicated(false))
}

import CoreMetrics
import Courier
import Foundation
import Tracing

func makeObservedClient(metrics: any MetricsFactory, tracer: any Tracer) -> APIClient {
    var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
    configuration.metricsFactory = metrics        // leave nil to use MetricsSystem's backend
    configuration.tracer = tracer                 // leave nil to use InstrumentationSystem's tracer
    return APIClient(configuration: configuration)
}

func loadImage(client: APIClient, id: Int) async throws {
    // A fixed name keeps dimensions bounded: "image", never "images/42"
    let response = try await client.send(Request<Data>(.get, "images/\(id)").named("image"))
    let metrics = response.metrics             // also on CourierError.metrics
    print(metrics.attempts, metrics.bytesReceived, metrics.timeToFirstByte ?? .zero, metrics.duration)
}

import Courier
import CourierStore
import Foundation
import GRDB  // Column, for filters and order

struct Photo: Codable, Identified, Sendable {  // the payload's "id" is read for uid
    var uid: Int
    var title: String
    var mimeType: String
}

func syncPhotos(client: APIClient, directory: URL) async throws -> [Photo] {
    // One SQLite file per signed-in user; client.logout() erases it
    let store = try CourierStore.forUser(of: client, in: directory)
    try await store.index(Photo.self, [StoreColumn("title") { $0.title }])

    // GET /images answers {"images": [...]}: upserted in one transaction; with .delete the
    // stored list becomes the answer's; with .both the cached answer is imported first
    let summary = try await client.send(
        Request<Data>(.get, "images", cache: .both), into: store, as: Photo.self, root: "images", missing: .delete)
    print(summary)  // inserted 2, updated 0, unchanged 0, deleted 0

    // The app shows the store: the rows now, and again after every import that changes them
    for try await photos in store.observe(Photo.self, .all.order(Column("title"))) {
        return photos
    }
    return []
}

import Courier
import CourierTesting
import Foundation

func recordedImages(baseURL: URL, fixtures: URL) async throws -> JSONValue {
    // The first run sends the request and writes images.har; later runs answer from the file.
    var redaction = CassetteRedaction.standard   // Authorization, Cookie, Set-Cookie
    redaction.queryParameters = ["api_key"]
    let cassette = try Cassette(file: fixtures.appendingPathComponent("images.har"), redaction: redaction)
    let client = APIClient(baseURL: baseURL, transport: RecordingTransport(wrapping: URLSessionTransport()))
    return try await cassette.use {
        try await client.send(Request<JSONValue>(.get, "images", query: ["api_key": "k-5f3e9a1c"])).value
    }
}

import Courier
import CourierStore
import Foundation

func renameWhenPossible(_ outbox: Outbox, imageID: Int, title: String) async throws -> OutboxFlush {
    // Kept in the store's file at once, with its own Idempotency-Key; nothing is sent yet.
    let rename = Request<Data>(.patch, "images/\(imageID)", body: ["title": .string(title)])
    try await outbox.enqueue(rename, scope: "image-\(imageID)")
    // Sends what is due, in order per scope; what fails waits or becomes a dead letter.
    return try await outbox.flush()
}

import Courier
import CourierStore
import Foundation

func startOutbox(store: CourierStore, client: APIClient) throws -> Outbox {
    // A 412: the photo changed on the server since the edit. Make the edit again on the current
    // version, with the title the store shows (the optimistic change below).
    let outbox = try Outbox(store: store, client: client) { conflict in
        guard let tag = conflict.currentETag, let id = Int(conflict.entry.url.lastPathComponent),
              let mine = try? await store.model(Photo.self, uid: id)
        else { return .deadLetter }
        return .replace(with: Request<Data>(.patch, "images/\(id)", body: ["title": .string(mine.title)]).header("If-Match", tag))
    }
    outbox.start()  // sends after each enqueue, on its backoff, and as soon as the server answers again
    return outbox
}

func rename(_ photo: Photo, to title: String, etag: String, in outbox: Outbox) async throws {
    var renamed = photo
    renamed.title = title
    let request = Request<Data>(.patch, "images/\(photo.uid)", body: ["title": .string(title)]).header("If-Match", etag)
    // The store shows the new title at once; it is put back if the server refuses the rename.
    try await outbox.enqueue(request, scope: "image-\(photo.uid)", applying: [.save(renamed)])
}

import Courier
import Foundation

/// An AI chat completion's tokens, printed as they stream in (the `text/event-stream` shape of
/// OpenAI-style APIs; the sample server imitates one at `POST /chat/completions`).
enum ReadmeChat {
    struct Message: Codable, Sendable { var role: String; var content: String }
    struct Ask: Encodable, Sendable { var model: String; var stream: Bool; var messages: [Message] }
    struct Chunk: Decodable {
        struct Choice: Decodable { struct Delta: Decodable { var content: String? }; var delta: Delta }
        var choices: [Choice]
    }

    static func complete(_ prompt: String, client: APIClient) async throws -> String {
        let ask = Ask(model: "any", stream: true, messages: [Message(role: "user", content: prompt)])
        var text = ""
        for try await event in try await client.stream(Request(.post, "chat/completions", body: .json(ask))).events {
            if event.data == "[DONE]" { break }                       // the API's end marker
            let chunk = try JSONDecoder().decode(Chunk.self, from: Data(event.data.utf8))
            let token = chunk.choices.first?.delta.content ?? ""
            print(token, terminator: "")                              // each token as it arrives
            text += token
        }
        return text
    }
}

func makeMutualTLSTransport(companyCA: String, identity: Data, password: String) throws -> AsyncHTTPClientTransport {
    var settings = AsyncHTTPClientTransport.Configuration()
    settings.trust = TrustPolicy(
        roots: .adding(try TrustPolicy.Certificate.pemEncoded(companyCA)),   // the system's roots and yours
        clientIdentity: .pkcs12(identity, password: password),               // mutual TLS
        minimumTLSVersion: .v1_3)
    settings.proxy = .init(host: "proxy.internal", port: 3128, user: "svc-api", password: password)
    return AsyncHTTPClientTransport(configuration: settings)
}

func makePinnedTransport(serverKey: String, backupKey: String) throws -> AsyncHTTPClientTransport {
    var settings = AsyncHTTPClientTransport.Configuration()
    settings.trust = TrustPolicy(pins: [
        // The SPKI SHA-256 of the key api.example.com serves, and of a backup key kept offline.
        try TrustPolicy.PublicKeyPins(host: "api.example.com", sha256: [serverKey, backupKey], scope: .leaf),
    ])
    return AsyncHTTPClientTransport(configuration: settings)
}

import Courier
import CourierAsyncHTTPClient
import CourierPostgres
import Foundation
import Logging
import PostgresNIO

func makeFleetClient(apiURL: URL, database: PostgresClient, storeTimeout: Duration = .seconds(1)) throws -> APIClient {
    // `database.run()` runs for as long as the service does (in its service group, or a task).
    var storeConfiguration = PostgresCacheStore.Configuration()
    storeConfiguration.maximumEntrySize = 1 << 20     // larger bodies are not cached
    storeConfiguration.timeout = storeTimeout         // slower than this: go without the cache
    let store = try PostgresCacheStore(client: database, configuration: storeConfiguration)

    var configuration = ClientConfiguration(baseURL: apiURL)
    configuration.cache = ResponseCache(store: store, memoryCapacity: 8 << 20)
    configuration.cacheFreshness = .http             // a shared store follows HTTP's rules only
    configuration.cacheOption = .both
    return APIClient(configuration: configuration, transport: AsyncHTTPClientTransport())
}

import Courier
import Foundation

/// A signed-in user's feed over a WebSocket: the handshake carries the captured credentials, and
/// the messages are read until the server closes.
enum ReadmeFeed {
    static func read(client: APIClient) async throws -> [String] {
        let socket = try await client.webSocket(Request(.get, "ws/feed", query: ["count": 3]))
        var lines: [String] = []
        for try await message in socket {
            if case .text(let text) = message { lines.append(text) }
        }
        print("closed with", socket.closeCode?.description ?? "no code", socket.closeReason ?? "")
        return lines
    }
}

func cookieSessions(baseURL: URL, keptIn file: URL) async throws {
    var configuration = ClientConfiguration(baseURL: baseURL)
    configuration.cookies = .jar(CookieJar(file: file))             // kept across launches (0600)
    let client = APIClient(configuration: configuration)
    _ = try await client.send(Request<JSONValue>(.post, "login", body: ["user": "ana"]))
    let csrf = client.cookieJar?.cookies.first { $0.name == "csrftoken" }?.value
    print(csrf ?? "no CSRF cookie")                                  // values are yours to read
    try client.logout()                                              // the jar and its file are emptied
}
