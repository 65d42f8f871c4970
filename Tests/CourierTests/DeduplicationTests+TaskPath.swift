import Courier
import Foundation
import Testing

extension DeduplicationTests {
    /// A transport with only `send` (no start-and-call-back), as a user's own transport would be:
    /// it forwards to a shipped one, so the sharing runs in a task of its own.
    struct SendOnly: HTTPTransport {
        let base: any HTTPTransport
        func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
            try await base.send(request, observer: observer)
        }
    }

    /// On a transport that can only `send`, sharing runs the exchange in a task of its own: the
    /// leader's cancellation leaves it to the 19 callers that joined, and the server sees one request.
    @Test(arguments: TransportKind.allCases)
    func sharingOnATransportThatOnlySendsSurvivesTheLeadersCancellation(_ kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(SendOnly(base: transport))
                let send: @Sendable () async -> Result<Response<Held>, CourierError> = {
                    await Self.outcome(client, Request<Held>(.get, "hold/sendonly"))
                }
                let leader = Task { await send() }
                await client.inFlight.waitUntilEntered(1)
                let joiners = (1..<20).map { _ in Task { await send() } }
                await client.inFlight.waitUntilEntered(20)
                leader.cancel()
                let leaderOutcome = await leader.value
                server.release("sendonly")
                for joiner in joiners {
                    let outcome = await joiner.value
                    #expect((try? outcome.get())?.value.key == "sendonly", "\(outcome)")
                }
                if case .failure(let error) = leaderOutcome {
                    #expect(error.kind == .cancelled, "\(error)")
                } else {
                    Issue.record("the cancelled leader was answered")
                }
                #expect(server.requestCount("GET", "/hold/{key}") == 1)
            }
        }
    }
}
