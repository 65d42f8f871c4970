import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `URLSessionTransport(challengeHandler:)`: a user who answers a Basic challenge with a credential
/// gets the response to the retried request, not the 401 (only the first answer is forgotten).
struct ChallengeTests {
    @Test func aChallengeAnsweredWithACredentialIsRetried() async throws {
        let server = try HostileServer { connection in
            while let head = connection.readHead() {
                if head.lowercased().contains("authorization: basic ") {
                    let body = #"{"user":"ana"}"#
                    connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                } else {
                    let body = #"{"error":"Sign in first."}"#
                    connection.write("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"api\"\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                }
            }
        }
        defer { server.stop() }
        let answered = Locked(0)
        let transport = URLSessionTransport(challengeHandler: { challenge in
            guard challenge.previousFailureCount == 0 else { return (.cancelAuthenticationChallenge, nil) }
            answered.withLock { $0 += 1 }
            return (.useCredential, URLCredential(user: "ana", password: "secret", persistence: .none))
        })
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.timeout = 10
        let client = APIClient(configuration: configuration, transport: transport)
        let response = try await client.send(Request<JSONValue>(.get, "me"))
        #expect(response.statusCode == 200)
        #expect(response.value["user"]?.stringValue == "ana")
        #expect(answered.withLock { $0 } == 1)
    }
}
