// The README's example of a generated client on Courier, verbatim (ReadmeTests in CourierTests
// finds it here); `Client` is ImageStoreAPI's, generated from the sample server's openapi.yaml.

// The generated client (an app generates its own, in its own target).
import ImageStoreAPI

import Courier
import CourierOpenAPI
import Foundation
import OpenAPIRuntime

func imageTitlesThroughOpenAPI(baseURL: URL) async throws -> [String] {
    var configuration = ClientConfiguration(baseURL: baseURL, authenticationHeaders: ["access-token", "client", "uid"])
    configuration.offlineMode = true   // the cached list when the server cannot be reached
    let transport = APIClientTransport(
        client: APIClient(configuration: configuration),
        operations: ["listImages": OperationSettings(cacheOption: .both, retryPolicy: .standard)])
    let client = Client(serverURL: baseURL, transport: transport)   // generated from the server's openapi.yaml
    do {
        return try await client.listImages().ok.body.json.images.map(\.title)
    } catch let error as ClientError {
        throw error.courierError ?? error   // classification, userMessage, a 422's validationErrors
    }
}
