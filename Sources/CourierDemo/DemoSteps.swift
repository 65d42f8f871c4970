import Courier
import CourierExamples
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// The steps of the tour, one method each.
struct DemoSteps {
    let client: APIClient
    let server: ImageStoreServer
    let narrator: Narrator

    func decodeModel() async throws {
        narrator.step("A typed GET: Request<User>(.get, \"sample\"), read by the seed's model rules (ModelDecoder: `id` to `uid`, snake_case to camelCase)")
        var request = Request<User>(.get, "sample")
        request.decoder = ModelDecoder()  // the demo's client decodes with Foundation's JSONDecoder
        let response = try await client.send(request)
        let user = response.value
        narrator.say("Got \(user.userName) <\(user.email)>, favourite pizza \(user.favoritePizza.name), \(user.orderedPizzas.count) orders.")
        narrator.say("Status \(response.statusCode), request \(response.requestID), \(response.data.count) bytes in \(response.metrics.duration.formatted).")
        try demand(user.orderedPizzas.map(\.pizzaID) == [5, 10], "the ordered pizzas did not decode")
    }

    func bodyAndQuery() async throws {
        narrator.step("A POST with body parameters and URL parameters at once (seed 001)")
        let request = Request<EchoReply>(
            .post, "echo/users", query: ["invite": "abc 123", "filter": ["tags": ["a", "b"]]],
            body: ["name": "Ana", "age": 31, "address": ["city": "São Paulo"]])
        let echo = try await client.send(request).value
        let body = String(decoding: Data(base64Encoded: echo.body) ?? Data(), as: UTF8.self)
        narrator.say("The server saw: \(echo.method) \(echo.path)?\(echo.query ?? "")")
        narrator.say("Content-Type: \(echo.header("content-type") ?? "none"); body: \(body)")
        try demand(body == #"{"address":{"city":"São Paulo"},"age":31,"name":"Ana"}"#, "the JSON body was not what was sent")
        try demand(echo.query == "filter%5Btags%5D%5B%5D=a&filter%5Btags%5D%5B%5D=b&invite=abc%20123", "the query was not encoded as documented")
    }

    func groupInjection() async throws {
        narrator.step("A request group that adds the user's e-mail to every request (seed 001's subclass, as a value)")
        let group = RequestGroup(apiPath: "echo", headers: ["X-Client": "demo"], bodyParameters: ["email": "ana@example.com"])
        let request: Request<EchoReply> = group.request(.post, "profile", body: ["name": "Ana"], encoderIsForm: true)
        let echo = try await client.send(request).value
        let body = String(decoding: Data(base64Encoded: echo.body) ?? Data(), as: UTF8.self)
        narrator.say("\(echo.method) \(echo.path), X-Client: \(echo.header("x-client") ?? "none"), form body: \(body)")
        try demand(body == "email=ana%40example.com&name=Ana", "the group's parameter was not injected")
    }

    func downloadWithProgress() async throws {
        narrator.step("Downloading 1 MiB with a progress bar")
        let bar = ProgressBar(narrator: narrator)
        var request = Request<Data>(.get, "bytes/1048576")
        request.downloadProgress = { bar.update($0) }
        let response = try await client.send(request)
        try demand(response.data.count == 1_048_576, "the download was \(response.data.count) bytes")
        try demand(response.data.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) }, "the downloaded bytes differ")
        narrator.say("All 1,048,576 bytes arrived intact.")
    }

    func streamEvents() async throws {
        narrator.step("A stream of Server-Sent Events, dropped mid-way and resumed")
        let request = Request<Data>(.get, "events", query: ["count": 5, "dropAfter": 2, "retry": 50])
        var ids: [String] = []
        for try await event in try client.events(request, reconnection: RetryPolicy(maximumAttempts: 4)) {
            narrator.say("event \(event.type) id \(event.id): \(event.data)")
            ids.append(event.id)
        }
        try demand(ids == ["1", "2", "3", "4", "5"], "the events came as \(ids)")
        narrator.say("The server dropped the connection after every second event; each reconnect sent Last-Event-ID, and no event came twice.")
    }

    func webSocketEcho() async throws {
        narrator.step("A WebSocket: text and binary echoed, then a close with a code and a reason")
        #if !canImport(Darwin)
        if client.transport is URLSessionTransport {
            let error = try await failure(else: "URLSession on Linux opened a WebSocket") { _ = try await client.webSocket(Request(.get, "ws/echo")) }
            try demand(error.kind == .invalidRequest, "expected a clear refusal, got \(error.kind)")
            narrator.say("URLSession on Linux refuses at once, nothing sent: \(error.message)")
            return
        }
        #endif
        let socket = try await client.webSocket(Request(.get, "ws/echo"))
        narrator.say("Handshake: \(socket.statusCode), compression \(socket.headers["Sec-WebSocket-Extensions"] ?? "off").")
        var replies = socket.makeAsyncIterator()
        for message: WebSocketMessage in [.text("hello, WebSocket"), .binary(Data([0, 1, 2, 3]))] {
            try await socket.send(message)
            let reply = try await replies.next()
            narrator.say("sent \(message) → echoed \(reply.map(String.init(describing:)) ?? "nothing")")
            try demand(reply == message, "the echo differs")
        }
        try await socket.send(.text("close 4000 demo is done"))
        let end = try await replies.next()
        try demand(end == nil && socket.closeCode?.rawValue == 4000, "expected the server's close 4000")
        narrator.say("The server closed with \(socket.closeCode.map(String.init(describing:)) ?? "no code"): \(socket.closeReason ?? "").")
    }

    func callbackAndCancel() async throws {
        narrator.step("Callback style on a chosen queue, then cancelling a slow request")
        let queue = DispatchQueue(label: "demo.callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "demo.callbacks")
        let label = await withCheckedContinuation { continuation in
            client.request(Request<JSONValue>(.get, "sample").callback(on: queue)) { result in
                let queueName = DispatchQueue.getSpecific(key: key) ?? "another queue"
                continuation.resume(returning: "\(queueName) → \(Self.describe(result))")
            }
        }
        narrator.say("Completion ran on \(label)")
        let cancelled: CourierError? = await withCheckedContinuation { continuation in
            let task = client.request(Request<Data>(.get, "delay/5000")) { result in
                if case .failure(let error) = result { continuation.resume(returning: error) } else { continuation.resume(returning: nil) }
            }
            narrator.say("Started \(task.id), cancelling it…")
            task.cancel()
        }
        try demand(cancelled?.isCancelled == true, "cancelling did not report a cancellation")
        narrator.say("The callback reported: \(cancelled!.message)")
    }

    func signInCallAndLogout() async throws {
        narrator.step("Signing in: devise-style headers captured, sent on every call, rotated, cleared by logout")
        var configuration = client.configuration
        configuration.authenticationHeaders = ["access-token", "client", "uid", "expiry"]
        configuration.credentialStore = CredentialStore.inMemory()
        let session = APIClient(configuration: configuration, transport: client.transport)
        _ = try await session.send(Request<JSONValue>(.post, "auth/sign_in", body: ["email": "demo@example.com", "password": "password"]))
        let first = session.credentials?["access-token"]
        try demand(first != nil, "signing in captured no token")
        narrator.say("Signed in as \(session.credentials?["uid"] ?? "?"); the token stays out of logs and of this output.")
        let me = try await session.send(Request<JSONValue>(.get, "me"))
        try demand(me.value["data"]?["email"]?.stringValue == "demo@example.com", "the authenticated call did not return the user")
        try demand(session.credentials?["access-token"] != first, "the token did not rotate")
        narrator.say("GET /me → \(me.statusCode) for \(me.value["data"]?["email"]?.stringValue ?? "?"); the server issued a new token, which replaced the old one.")
        try session.logout()
        do {
            let error = try await failure(else: "a call after logout succeeded") { _ = try await session.send(Request<JSONValue>(.get, "me")) }
            try demand(error.classification == .unauthorized, "after logout: \(error.classification)")
            narrator.say("Logged out; GET /me → .\(error.classification): \(error.userMessage)")
        }
    }

    func errors() async throws {
        narrator.step("Errors are typed and say what went wrong")
        do {
            let error = try await failure(else: "a 404 did not throw") { _ = try await client.send(Request<JSONValue>(.get, "status/404")) }
            try demand(error.classification == .notFound, "a 404 was classified as \(error.classification)")
            narrator.say("404 → .\(error.classification): \(error.message)")
        }
        do {
            let error = try await failure(else: "a 422 did not throw") { _ = try await client.send(Request<JSONValue>(.get, "errors/422", query: ["shape": "jsonapi"])) }
            guard error.classification.name == "validationFailed", let fields = error.validationErrors else {
                throw DemoFailure("a 422 was classified as \(error.classification)")
            }
            narrator.say("422 → .validationFailed: \(fields.messages(for: "email").joined(separator: ", ")) (email); user message: \(error.userMessage)")
        }
        do {
            let error = try await failure(else: "FastAPI's 422 did not throw") { _ = try await client.send(Request<JSONValue>(.get, "errors/validation/fastapi")) }
            guard let fields = error.validationErrors, let zip = fields.messages(for: "address.zipCode").first else {
                throw DemoFailure("FastAPI's 422 gave no field errors: \(error.classification)")
            }
            narrator.say("FastAPI 422 → address.zipCode (server: \(fields.serverNames["address.zipCode"] ?? "the same")): \(zip)")
        }
        do {
            let error = try await failure(else: "a 500 did not throw") { _ = try await client.send(Request<JSONValue>(.get, "errors/500")) }
            try demand(error.bodyValue?.text?.contains("<html>") == true, "the HTML page of a 500 was not kept as text")
            narrator.say("500 with an HTML page → .\(error.classification), body kept as text (\(error.body?.count ?? 0) bytes): \(error.userMessage)")
        }
        let closed = APIClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: client.transport)
        do {
            let error = try await failure(else: "a closed port did not throw") { _ = try await closed.send(Request<JSONValue>(.get, "anything")) }
            try demand(error.kind == .cannotConnect, "a closed port was classified as \(error.kind)")
            narrator.say("Closed port → .\(error.kind): \(error.message)")
        }
        do {
            let error = try await failure(else: "an invalid URL did not throw") { _ = try await client.send(Request<JSONValue>(.get, "http://exa mple.com:99999/x")) }
            narrator.say("Bad URL → .\(error.kind): \(error.message)")
        }
    }

    private static func describe(_ result: Result<Response<JSONValue>, CourierError>) -> String {
        switch result {
        case .success(let response): "\(response.statusCode) for \(response.requestID), user \(response.value["user_name"]?.stringValue ?? "?")"
        case .failure(let error): "error: \(error.message)"
        }
    }
}

extension RequestGroup {
    /// A request of the group sent as a form (a demo shortcut).
    func request<Value: Decodable & Sendable>(_ method: HTTPMethod, _ path: String, body: RequestBody, encoderIsForm: Bool) -> Request<Value> {
        var request: Request<Value> = self.request(method, path, body: body)
        if encoderIsForm { request.encoder = URLFormParameterEncoder() }
        return request
    }
}

extension Duration {
    /// Milliseconds with one decimal.
    var formatted: String {
        String(format: "%.1f ms", seconds * 1000)
    }
}
