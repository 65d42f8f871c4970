import Courier
import Foundation

// The code of the "Authentication headers" article, compiled; `DocExamplesTests` runs it against
// the sample server.

/// Signs in, reads the profile with the stored headers, signs out; what the store held after each.
func signInAndOut(baseURL: URL, credentialsFolder: URL) async throws -> (signedIn: String?, signedOut: String?) {
    let store = CredentialStore.file(origin: baseURL.origin, directory: credentialsFolder)
    var configuration = ClientConfiguration(baseURL: baseURL)
    configuration.authenticationHeaders = ["access-token", "client", "uid"]
    configuration.credentialStore = store
    let client = APIClient(configuration: configuration)
    _ = try await client.send(Request<JSONValue>(.post, "auth/sign_in", body: ["email": "demo@example.com", "password": "password"]))
    let signedIn = try store.load()?["uid"]                           // "demo@example.com", 0600 file
    _ = try await client.send(Request<JSONValue>(.get, "me"))        // carries the stored headers
    try client.logout()                                               // forgets them and the user's cache
    let signedOut = try store.load()?["uid"]                          // nil; a request to "me" gets 401
    return (signedIn, signedOut)
}
