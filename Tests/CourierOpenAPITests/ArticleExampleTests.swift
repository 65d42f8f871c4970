import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The code the "Using Courier with swift-openapi-generator" article and the README show
/// (ArticleExamples.swift, ReadmeExample.swift) does what they say, against the sample server.
@Suite struct ArticleExampleTests {
    @Test func aGeneratedClientSignsInListsAndReadsErrorsThroughCourier() async throws {
        try await OpenAPITransportKind.urlSession.withServer { server, transport, directory in
            let client = makeImageStoreClient(baseURL: server.baseURL, cachesURL: directory.appendingPathComponent("cache"))
            #expect(await signUpProblems(client: client, email: "ana@example.com", password: "correct horse").isEmpty)
            #expect(await signUpProblems(client: client, email: "not an address", password: "x")["email"]?.isEmpty == false)
            let titles = try await imageTitles(client: client, email: "ana@example.com", password: "correct horse")
            #expect(titles.isEmpty)
            // The sign-in's headers were captured: the next request is signed in.
            let me = try await client.me().ok.body.json.data
            #expect(me.email == "ana@example.com")
            let missing = try await imageIfStored(client: server.courierClient(transport), baseURL: server.baseURL, id: 404)
            #expect(missing == nil)
        }
    }

    @Test func theReadmeExampleListsThroughTheGeneratedClient() async throws {
        try await OpenAPITransportKind.urlSession.withServer { server, _, _ in
            let titles = try await imageTitlesThroughOpenAPI(baseURL: server.baseURL)
            #expect(titles.isEmpty)
            #expect(server.requestCount("GET", "/images") == 1)
        }
    }
}
