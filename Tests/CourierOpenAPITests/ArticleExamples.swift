// The generated client (an app generates its own, in its own target).
import ImageStoreAPI

import Courier
import CourierOpenAPI
import Foundation
import OpenAPIRuntime

// The code of the "Using Courier with swift-openapi-generator" article, compiled;
// `ArticleExampleTests` runs it against the sample server. `Client`, `Operations` and
// `Components` are what swift-openapi-generator made from the sample server's openapi.yaml
// (ImageStoreAPI, committed by Scripts/generate-openapi.sh).

/// A generated client on Courier: the image list cached and revalidated, retried on 503, the
/// sign-in's authentication headers captured and sent on every later request.
func makeImageStoreClient(baseURL: URL, cachesURL: URL) -> Client {
    var configuration = ClientConfiguration(
        baseURL: baseURL, authenticationHeaders: ["access-token", "token-type", "client", "expiry", "uid"])
    configuration.cache = ResponseCache(directory: cachesURL)
    configuration.offlineMode = true                      // the cached list when the server is away
    var list = OperationSettings()
    list.cacheOption = .both                              // revalidated with If-None-Match
    list.retryPolicy = .standard                          // 503 and Retry-After, GETs only
    let transport = APIClientTransport(client: APIClient(configuration: configuration), operations: ["listImages": list])
    return Client(serverURL: baseURL, transport: transport)
}

/// The titles of the images, once signed in.
func imageTitles(client: Client, email: String, password: String) async throws -> [String] {
    _ = try await client.signIn(body: .json(.init(email: email, password: password))).ok
    return try await client.listImages().ok.body.json.images.map(\.title)
}

/// What a refused sign-up said, field by field: the `CourierError` inside the generated client's
/// `ClientError` carries the 422's parsed field errors.
func signUpProblems(client: Client, email: String, password: String) async -> [String: [String]] {
    do {
        _ = try await client.signUp(body: .json(.init(email: email, password: password)))
        return [:]
    } catch let error as ClientError {
        return error.courierError?.validationErrors?.fields ?? ["": [error.localizedDescription]]
    } catch {
        return ["": [error.localizedDescription]]
    }
}

/// An operation whose documented error answers the generated code handles itself.
func imageIfStored(client: APIClient, baseURL: URL, id: Int64) async throws -> Components.Schemas.Image? {
    let transport = APIClientTransport(
        client: client, operations: ["getImage": OperationSettings(suppressErrorAlert: true, returnsErrorResponses: true)])
    switch try await Client(serverURL: baseURL, transport: transport).getImage(path: .init(id: id)) {
    case .ok(let found): return try found.body.json
    case .notFound: return nil
    default: throw CourierError(.invalidResponse, "The store answered getImage \(id) in an undocumented way.")
    }
}
