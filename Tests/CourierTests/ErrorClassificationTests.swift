import Courier
@testable import CourierStore
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Synchronization
import Testing

/// Every failure arrives as one classified error with a user message.
@Suite struct ErrorClassificationTests {
    func failure<Value>(_ client: APIClient, _ request: Request<Value>) async -> CourierError? {
        await #expect(throws: CourierError.self) { try await client.send(request) }
    }

    @Test(arguments: TransportKind.allCases)
    func statusesAndTransportFailuresAreClassified(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let expected: [(String, ErrorClassification)] = [
                    ("status/401", .unauthorized), ("status/403", .forbidden), ("status/404", .notFound),
                    ("status/409", .clientError(409)), ("status/503", .serverError(503)), ("errors/500", .serverError(500)),
                ]
                for (path, classification) in expected {
                    let error = await failure(client, Request<JSONValue>(.get, path))
                    #expect(error?.classification == classification, "\(path)")
                }
                let closed = APIClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: transport)
                #expect(await failure(closed, Request<Data>(.get, "x"))?.classification == .cannotConnect)
                var slow = Request<Data>(.get, "delay/10000")
                slow.timeout = 0.3
                let timedOut = await failure(client, slow)
                #expect(timedOut?.classification == .timedOut)
                #expect(timedOut?.userMessage == "The server is not responding. Please try again later.")
                #expect(await failure(client, Request<Data>(.get, "http://exa mple.com/"))?.classification == .invalidRequest)
            }
        }
    }

    @Test func offlineAndCancelledFromTheirKinds() {
        #expect(CourierError(.notConnectedToInternet, "offline").classification == .offline)
        #expect(CourierError(.notConnectedToInternet, "offline").userMessage == "Please check your internet connection.")
        let cancelled = CourierError(.cancelled, "cancelled")
        #expect(cancelled.classification == .cancelled && cancelled.isCancelled)
    }

    /// `CourierError.Kind` is the one list: a kind's classification, whether it is a network
    /// failure, what retries take by default and what the outbox gives up on all come from it, and a
    /// kind a package adds is `other` everywhere until it says more.
    @Test func everythingAboutAFailureComesFromItsKind() {
        let network: [CourierError.Kind] = [.notConnectedToInternet, .cannotConnect, .timedOut, .connectionLost]
        let unsendable: [CourierError.Kind] = [.invalidURL, .invalidRequest, .encodingFailed]
        let others: [CourierError.Kind] = [
            .invalidResponse, .cancelled, .redirectFailed, .decodingFailed, .transport, .rejected, .responseTooLarge,
            .notCached, .untrustedServer, .clientCertificateRefused, .httpStatus(503), CourierError.Kind("mine"),
        ]
        for kind in network { #expect(kind.isNetworkFailure, "\(kind)") }
        for kind in unsendable + others { #expect(!kind.isNetworkFailure, "\(kind)") }
        for kind in unsendable {
            #expect(CourierError(kind, "x").classification == .invalidRequest, "\(kind)")
            #expect(Outbox.decision(for: CourierError(kind, "x")) == .deadLetter, "\(kind)")
        }
        for kind in network + others where kind != .cancelled {
            #expect(Outbox.decision(for: CourierError(kind, "x")) != .deadLetter, "\(kind)")
        }
        #expect(CourierError(.untrustedServer, "x").classification == .insecureConnection)
        #expect(CourierError(CourierError.Kind("mine"), "x").classification == .other)
        #expect(CourierError.Kind("timedOut") == .timedOut)
        let standard = RetryPolicy.standard
        #expect(network.filter(standard.retries) == [.cannotConnect, .timedOut, .connectionLost])
        #expect(!standard.retries(CourierError.Kind("mine")))
    }

    @Test(arguments: [
        ("rails", ["email": ["has already been taken", "is invalid"], "password": ["is too short (minimum is 8 characters)"]]),
        ("nested", ["email": ["has already been taken"], "name": ["can't be blank"]]),
        ("jsonapi", ["email": ["has already been taken"], "password": ["is too short"], "base": ["Account is locked"]]),
        ("problem", ["age": ["must be a positive integer"], "color": ["must be 'green', 'red' or 'blue'"]]),
    ])
    func everyValidationShapeIsParsed(shape: String, fields: [String: [String]]) async throws {
        try await withServer { server in
            let error = await failure(server.client(URLSessionTransport()), Request<JSONValue>(.get, "errors/422", query: ["shape": .string(shape)]))
            #expect(error?.classification == .validationFailed(ValidationErrors(fields: fields)))
            #expect(error?.validationErrors?.fields == fields)
        }
    }

    @Test func unknownValidationShapeKeepsTheRawBody() async throws {
        try await withServer { server in
            let error = await failure(server.client(URLSessionTransport()), Request<JSONValue>(.get, "errors/422", query: ["shape": "other"]))
            #expect(error?.classification == .validationFailed(nil))
            #expect(error?.body.map { String(decoding: $0, as: UTF8.self) } == #"{"oops":"an unknown shape"}"#)
            #expect(error?.bodyValue?.json?["oops"]?.stringValue == "an unknown shape")
            #expect(error?.userMessage == "Some of the information sent is not valid.")
        }
    }

    @Test func validationMessagesBecomeTheUserMessage() async throws {
        try await withServer { server in
            let error = await failure(server.client(URLSessionTransport()), Request<JSONValue>(.get, "errors/422", query: ["shape": "problem"]))
            #expect(error?.userMessage == "age must be a positive integer; color must be 'green', 'red' or 'blue'")
        }
    }

    @Test(arguments: ["error", "error_message", "message"])
    func messageIsExtractedFromTheBody(key: String) async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let json = await failure(client, Request<JSONValue>(.get, "errors/400", query: ["key": .string(key), "message": "Card declined"]))
            #expect(json?.userMessage == "Card declined")
            #expect(json?.classification == .clientError(400))
            let xml = await failure(client, Request<JSONValue>(.get, "errors/400", query: ["key": .string(key), "message": "Card declined", "type": "xml"]))
            #expect(xml?.bodyValue?.xml?.name == "response")
            #expect(xml?.userMessage == "Card declined")
        }
    }

    @Test func messageFallsBackToTheClassificationAndCanBeReplaced() async throws {
        try await withServer { server in
            let plain = await failure(server.client(URLSessionTransport()), Request<Data>(.get, "status/404"))
            #expect(plain?.userMessage == "What you asked for was not found.")
            let custom = server.client(URLSessionTransport()) {
                $0.errorHandling.messageExtractor = { error in error.statusCode.map { "HTTP \($0)" } }
            }
            #expect(await failure(custom, Request<Data>(.get, "status/404"))?.userMessage == "HTTP 404")
        }
    }

    @Test func customClassifierComesFirst() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) {
                $0.errorHandling.classifier = { error in
                    error.statusCode == 409 ? .custom("conflict") : nil
                }
            }
            #expect(await failure(client, Request<Data>(.get, "status/409"))?.classification == .custom("conflict"))
            #expect(await failure(client, Request<Data>(.get, "status/404"))?.classification == .notFound)
        }
    }
}
