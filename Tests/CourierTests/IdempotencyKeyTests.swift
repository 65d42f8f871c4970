import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The sample server honours `Idempotency-Key` on writes as the IETF draft describes: a repeat of
/// the same request gets the first answer again without a second effect (but after a failure
/// worth retrying, which is not kept), the key with another request is refused with 422, a repeat
/// while the first is being answered with 409, and the answers outlive a restart of the server.
@Suite struct IdempotencyKeyTests {
    static func signUp(_ email: String, key: String?) -> Request<Data> {
        var request = Request<Data>(.post, "auth", body: ["email": .string(email), "password": "correct horse"])
        if let key { request = request.header("Idempotency-Key", "\"\(key)\"") }
        request.suppressErrorAlert = true
        return request
    }

    @Test func aRepeatGetsTheFirstAnswerWithoutASecondEffect() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let first = try await client.send(Self.signUp("ida@example.com", key: "k-1"))
            let again = try await client.send(Self.signUp("ida@example.com", key: "k-1"))
            #expect(first.statusCode == 201 && again.statusCode == 201)
            #expect(again.value == first.value && again.headers["access-token"] == first.headers["access-token"])
            #expect(again.headers["Idempotent-Replayed"] == "true" && first.headers["Idempotent-Replayed"] == nil)
            // Without a key the same sign-up is a second attempt, which the server refuses: the account exists once.
            let unkeyed = await #expect(throws: CourierError.self) { try await client.send(Self.signUp("ida@example.com", key: nil)) }
            #expect(unkeyed?.statusCode == 422)

            // The key with another request: 422, and nothing done.
            let other = await #expect(throws: CourierError.self) { try await client.send(Self.signUp("eve@example.com", key: "k-1")) }
            #expect(other?.statusCode == 422 && other?.bodyText?.contains("k-1") == true)
            #expect(try await client.send(Self.signUp("eve@example.com", key: "k-2")).statusCode == 201)

            // A bare key works too; a GET ignores the header.
            #expect(try await client.send(Self.signUp("bare@example.com", key: nil).header("Idempotency-Key", "bare-1")).statusCode == 201)
            #expect(try await client.send(Request<Data>(.get, "sample").header("Idempotency-Key", "\"k-1\"")).statusCode == 200)
        }
    }

    @Test func aFailureWorthRetryingIsNotKept() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            var request = Request<Data>(.post, "flaky/idem", query: ["failures": 1, "status": 503], body: ["n": 1]).header("Idempotency-Key", "\"f-1\"")
            request.suppressErrorAlert = true
            let failed = await #expect(throws: CourierError.self) { try await client.send(request) }
            #expect(failed?.statusCode == 503)
            let answered = try await client.send(request)
            #expect(answered.statusCode == 200 && answered.headers["Idempotent-Replayed"] == nil)
            #expect(try await client.send(request).headers["Idempotent-Replayed"] == "true")
            #expect(server.flakyAttempts("idem") == 2)
        }
    }

    @Test func aRepeatWhileTheFirstIsAnsweredIsRefusedWith409() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            var request = Request<Data>(.post, "hold/idem", body: ["n": 1]).header("Idempotency-Key", "\"h-1\"")
            request.suppressErrorAlert = true
            let held = request
            let first = Task { try await client.send(held) }
            await server.waitForRequests("POST", "/hold/{key}")
            let conflict = await #expect(throws: CourierError.self) { try await client.send(held) }
            #expect(conflict?.statusCode == 409)
            server.release("idem")
            let answered = try await first.value
            let replayed = try await client.send(held)
            #expect(answered.statusCode == 200 && replayed.value == answered.value && replayed.headers["Idempotent-Replayed"] == "true")
        }
    }

    @Test func theAnswersOutliveARestartOfTheServer() async throws {
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let database = directory.url.appendingPathComponent("store.sqlite").path
        let first = try await withServer(ServerConfiguration(databasePath: database)) { server in
            try await server.client(URLSessionTransport()).send(Self.signUp("rey@example.com", key: "r-1"))
        }
        let again = try await withServer(ServerConfiguration(databasePath: database)) { server in
            try await server.client(URLSessionTransport()).send(Self.signUp("rey@example.com", key: "r-1"))
        }
        #expect(again.statusCode == 201 && again.value == first.value && again.headers["Idempotent-Replayed"] == "true")
    }

    /// A keyed request is read whole to be compared, so its body has a limit: past 16 MiB, a 413
    /// that says so, and nothing done.
    @Test func aKeyedBodyOverSixteenMebibytesIsRefusedWith413() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            var large = Request<Data>(.put, "documents/big", body: .data(Data(count: (16 << 20) + 1), contentType: "application/octet-stream"))
            large = large.header("Idempotency-Key", "\"big-1\"")
            large.suppressErrorAlert = true
            let refused = await #expect(throws: CourierError.self) { try await client.send(large) }
            #expect(refused?.statusCode == 413 && refused?.bodyText?.contains("16 MiB") == true, "\(String(describing: refused))")
            let stored = try await client.send(Request<JSONValue>(.get, "documents")).value["documents"]?.arrayValue ?? []
            #expect(!stored.contains { $0["name"]?.stringValue == "big" })
        }
    }
}
