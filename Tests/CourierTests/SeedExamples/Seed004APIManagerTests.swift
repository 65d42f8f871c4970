import Courier
import CourierStore
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

extension SeedExamples {
    /// Seed 004: the AFNetworking `APIManager` with JSON and XML serializers, an `ErrorHandler` with
    /// error types and `customErrorHandler`, endpoints per object with a `TypeParameter`, the
    /// `CoreDataHelper`, and the local image-store server. Each test is named after the seed's
    /// section and runs against the sample server, which is that image store.
    @Suite struct Seed004APIManagerTests {
        /// An image as the store describes it (the same fields in JSON and XML).
        struct Image: Codable, Sendable, Identified {
            var id: Int
            var title: String
            var mimeType: String
            var uid: Int { id }
        }

        /// Stores an image through `POST /images` and returns it.
        static func upload(_ title: String, with client: APIClient) async throws -> Image {
            try await client.send(Request<Image>(.post, "images", body: .multipart([.text("title", title), .data("image", SeedFixtures.png, fileName: "\(title).png")]))).value
        }

        /// "APIManager": one configured manager per API with a request serializer, a response
        /// serializer and a base URL. A client has a `parameterEncoder` and a `decoder`, and a request
        /// read as `ResponseBodyValue` gets JSON or XML by the response's `Content-Type`, so one
        /// client serves both formats. (The seed's `securityPolicy` can switch certificate validation
        /// off; Courier has no such switch: TLS is always validated, and a `challengeHandler` on
        /// `URLSessionTransport` is the place for pinning.)
        @Test func apiManagerSerializers() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport()) { $0.parameterEncoder = JSONParameterEncoder() }
                _ = try await Self.upload("Dusk", with: client)
                let json = try await client.send(Request(.get, "images", query: ["type": "json"], serializer: .untyped)).value
                let xml = try await client.send(Request(.get, "images", query: ["type": "xml"], serializer: .untyped)).value
                #expect(json.json?["images"]?[0]?["title"]?.stringValue == "Dusk")
                #expect(xml.xml?["images"]?["item"]?["title"]?.text == "Dusk")
            }
        }

        /// The `success` block gets the operation and the serialized object; `failure` gets the
        /// operation, `errorDescription`, `errorType` and `isCancelled`. Courier's `Result` holds a
        /// `Response` (status, headers, request id: the operation's part) or a `CourierError`, whose
        /// `userMessage`, `classification` and `isCancelled` are those three.
        @Test func successAndFailureBlocks() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let outcomes = CallbackRecorder<Result<Response<JSONValue>, CourierError>>()
                client.request(Request<JSONValue>(.get, "images")) { outcomes.record($0) }
                let response = try #require(await outcomes.next().first).get()
                #expect(response.statusCode == 200 && response.value["images"]?.arrayValue?.isEmpty == true)

                client.request(Request<JSONValue>(.get, "images/0")) { outcomes.record($0) }
                guard case .failure(let missing)? = await outcomes.next().first else { Issue.record("expected a failure"); return }
                #expect((missing.userMessage, missing.classification, missing.isCancelled) == ("Image 0 was not found.", .notFound, false))

                client.request(Request<JSONValue>(.get, "delay/10000")) { outcomes.record($0) }.cancel()
                guard case .failure(let cancelled)? = await outcomes.next().first else { Issue.record("expected a failure"); return }
                #expect(cancelled.isCancelled && cancelled.classification == .cancelled)
            }
        }

        /// "ErrorHandler": the types and descriptions of no connection, a server that does not
        /// respond, 401, 404 and 422 with its field errors parsed.
        @Test func errorHandlerTypesAndDescriptions() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                func failure(_ request: Request<JSONValue>) async -> CourierError? {
                    await #expect(throws: CourierError.self) { try await client.send(request) }
                }
                var slow = Request<JSONValue>(.get, "delay/5000")
                slow.timeout = 1
                #expect(await failure(slow)?.classification == .timedOut)
                #expect(await failure(Request(.get, "me"))?.classification == .unauthorized)
                #expect(await failure(Request(.get, "images/404"))?.classification == .notFound)
                let invalid = await failure(Request(.get, "errors/422", query: ["shape": "nested"]))
                #expect(invalid?.validationErrors?.messages(for: "email") == ["has already been taken"])
                #expect(invalid?.userMessage == "email has already been taken; name can't be blank", "the field messages, not the body's general message")
            }
            // "Please check your internet connection": the transport's no-network failure is `.offline`
            // (a loopback test cannot switch the network off, so the error is made as URLSession reports it).
            let offline = CourierError(.notConnectedToInternet, "The Internet connection appears to be offline.")
            #expect(offline.classification == .offline && offline.userMessage == "Please check your internet connection.")
            // "Сервер не отвечает": nobody listens at the address.
            let gone = try await withServer { $0.baseURL }
            let unreachable = await #expect(throws: CourierError.self) { try await APIClient(baseURL: gone).send(Request<JSONValue>(.get, "images")) }
            #expect(unreachable?.classification == .cannotConnect)
        }

        /// `errorHandler.customErrorHandler` returning `operation.responseString` for 422: a message
        /// extractor returning `bodyText`.
        @Test func customErrorHandlerReturnsThe422Body() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport()) {
                    $0.errorHandling = ErrorHandling(messageExtractor: { error in
                        error.statusCode == 422 ? error.bodyText : ErrorHandling.defaultMessage(in: error)
                    })
                }
                let error = await #expect(throws: CourierError.self) {
                    try await client.send(Request<JSONValue>(.get, "errors/422", query: ["shape": "rails"]))
                }
                #expect(error?.userMessage.hasPrefix(#"{"errors":{"email":["#) == true)
            }
        }

        /// "Реализация endpoint для объектов": `AFObject.GET_OBJECT(type:)` with `TypeParameter`
        /// `.JSON`, `.XML` and `.XMLCustom`, each its own operation manager, and `firstKey`. In Swift 6
        /// the type parameter picks a request (query and serializer) from one client, and
        /// `decoding(at:)` is `firstKey`.
        enum TypeParameter: CaseIterable {
            case json, xml, xmlCustom

            /// The seed's `parameter`: `json`, or `xml` for both XML kinds.
            var parameter: Parameter { self == .json ? "json" : "xml" }

            /// `GET images?type=…`, its list at `images` in both formats.
            var images: Request<[Image]> {
                let request = Request<[Image]>(.get, "images", query: ["type": parameter]).decoding(at: "images")
                guard self == .xmlCustom else { return request }
                // The custom XML manager: your own reading of the XML tree.
                return request.reading(with: ResponseSerializer { body, _ in
                    try XMLTreeParser.parse(body)["images"]?.children.map { item in
                        Image(id: Int(item["id"]?.text ?? "") ?? -1, title: item["title"]?.text ?? "", mimeType: item["mimeType"]?.text ?? "")
                    } ?? []
                })
            }
        }

        @Test func getObjectWithATypeParameter() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let stored = [try await Self.upload("Dawn", with: client), try await Self.upload("Noon", with: client)]
                for type in TypeParameter.allCases {
                    let images = try await client.send(type.images).value
                    #expect(images.map(\.title) == ["Dawn", "Noon"], "\(type)")
                    #expect(images == stored)
                }
            }
        }

        /// `FSSerializationInputParamaters(…, firstKey: "object")`: the object under a root key, in
        /// JSON and in XML; a missing root is an error that names it.
        @Test func firstKeyUnwrapsTheObject() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                try await SeedFixtures.put(#"{"object": {"id": 7, "title": "Dusk", "mime_type": "image/png"}}"#, as: "object-json", on: client)
                try await SeedFixtures.put(
                    "<response><object><id>7</id><title>Dusk</title><mimeType>image/png</mimeType></object></response>",
                    as: "object-xml", contentType: "application/xml", on: client)
                for name in ["object-json", "object-xml"] {
                    let image = try await client.send(Request<Image>(.get, "documents/\(name)").decoding(at: "object")).value
                    #expect(image.title == "Dusk" && image.uid == 7, "\(name)")
                }
                let missing = await #expect(throws: CourierError.self) {
                    try await client.send(Request<Image>(.get, "documents/object-json").decoding(at: "data.object"))
                }
                #expect(missing?.kind == .decodingFailed && missing?.keyPath == "data")
                // A failure inside the object names its path from the top of the body.
                try await SeedFixtures.put(#"{"object": {"id": "seven", "title": "Dusk", "mime_type": "image/png"}}"#, as: "object-bad", on: client)
                let inside = await #expect(throws: CourierError.self) {
                    try await client.send(Request<Image>(.get, "documents/object-bad").decoding(at: "object"))
                }
                #expect(inside?.keyPath == "object.id")
            }
        }

        /// The seed reads XML with `try! XMLReader.dictionaryForNSXMLParser(...)`, which crashes the app
        /// on a malformed document. Courier's XML reading throws: the request fails with
        /// `.decodingFailed`, and the app goes on.
        @Test func malformedXMLIsAnErrorNotACrash() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                try await SeedFixtures.put("<images><item><title>Dusk</item>", as: "broken", contentType: "application/xml", on: client)
                for request in [Request<[Image]>(.get, "documents/broken").decoding(at: "images"), Request<[Image]>(.get, "documents/broken")] {
                    let error = await #expect(throws: CourierError.self) { try await client.send(request) }
                    #expect(error?.kind == .decodingFailed)
                }
                let tree = await #expect(throws: CourierError.self) { try await client.send(Request(.get, "documents/broken", serializer: .xml)) }
                #expect(tree?.kind == .decodingFailed)
            }
        }

        /// "CoreDataHelper": serialization and import of objects into a local database, optional.
        /// `CourierStore` imports a response into SQLite in one transaction.
        @Test func coreDataHelperImportsTheObjects() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                _ = try await Self.upload("Dawn", with: client)
                let store = try CourierStore.inMemory()
                let summary = try await client.send(Request<Data>(.get, "images", query: ["type": "xml"]), into: store, as: Image.self, root: "images")
                #expect(summary.inserted == 1)
                #expect(try await store.models(Image.self).map(\.title) == ["Dawn"])
            }
        }

        /// "Тестирование на локальном сервере": POST an image, GET it by id, PATCH it and GET the
        /// change, DELETE it, and every later GET of that id is an error. The seed's MAMP + PHP +
        /// MySQL server is the `ImageStoreServer` (`courier serve`), with SQLite.
        @Test func localServerPostGetPatchDelete() async throws {
            try await withServer { server in
                let client = server.client(URLSessionTransport())
                let posted = try await Self.upload("Primeira", with: client)
                #expect(try await client.send(Request<Image>(.get, "images/\(posted.id)")).value.title == "Primeira")
                let patched = try await client.send(Request<Image>(.patch, "images/\(posted.id)", body: ["title": "Nova"])).value
                #expect(patched.title == "Nova")
                #expect(try await client.send(Request<Image>(.get, "images/\(posted.id)", query: ["type": "xml"])).value.title == "Nova")
                _ = try await client.send(Request<JSONValue>(.delete, "images/\(posted.id)"))
                for _ in 0..<2 {
                    let gone = await #expect(throws: CourierError.self) { try await client.send(Request<Image>(.get, "images/\(posted.id)")) }
                    #expect(gone?.classification == .notFound)
                }
            }
        }
    }
}
