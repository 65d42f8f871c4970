import Courier
import Foundation

// The code of the "Caching and offline mode" article, compiled; `DocExamplesTests` runs it
// against the sample server.

/// Where each answer for the menu came from, with each cache option in turn.
func menuSources(client: APIClient) async throws -> [ResponseSource] {
    let menu = { (option: CacheOption) in Request<JSONValue>(.get, "documents/menu", cache: option) }
    let first = try await client.send(menu(.cacheOnly)).source     // not cached yet: .network
    let second = try await client.send(menu(.cacheOnly)).source    // from the cache, no request: .cache
    let third = try await client.send(menu(.networkOnly)).source   // the cache ignored: .network
    return [first, second, third]
}

/// `.both` with a callback: the cached menu first, then the network's.
func showMenuTwice(client: APIClient, show: @escaping @Sendable (JSONValue?, Bool) -> Void) {
    client.request(Request<JSONValue>(.get, "documents/menu", cache: .both)) { menu, _, fromCache in
        show(menu, fromCache)                                       // fromCache: true, then false
    }
}

/// A client that caches as the server's headers say: a catalogue served with
/// `Cache-Control: max-age=60, stale-while-revalidate=600` answers from the cache for a minute,
/// then at once for ten more while it revalidates in the background.
func catalogueClient(baseURL: URL, cache: ResponseCache) -> APIClient {
    var configuration = ClientConfiguration(baseURL: baseURL)
    configuration.cache = cache
    configuration.cacheOption = .both
    configuration.cacheFreshness = .http
    return APIClient(configuration: configuration)
}

/// The menu as the server has it now: the request's own `no-cache` revalidates what is stored.
func currentMenu(client: APIClient) async throws -> Response<JSONValue> {
    try await client.send(Request<JSONValue>(.get, "documents/menu", headers: ["Cache-Control": "no-cache"]))
}

/// A login is sent, and never stored: its body holds a password.
func logIn(client: APIClient) async throws -> JSONValue {
    let login = Request<JSONValue>(.post, "echo/login", body: ["user": "jota", "senha": "mansaothugstronda"], cache: .both)
    return try await client.send(login.notSavedInCache()).value
}
