import Courier
import Foundation
import ImageStoreServer
import Synchronization
import Testing

@Suite struct SmokeTests {
    @Test(arguments: TransportKind.allCases)
    func uploadProgressAndRedirect(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let reports = Mutex<[TransferProgress]>([])
                var request = Request<EchoReply>(.post, "echo/x", body: .data(Data(count: 3_000_000), contentType: "application/octet-stream"))
                request.uploadProgress = { p in reports.withLock { $0.append(p) } }
                let response = try await client.send(request)
                print(kind, "upload reports", reports.withLock { $0.count }, reports.withLock { $0.last })
                #expect(Data(base64Encoded: response.value.body)?.count == 3_000_000)
                let redirected = try await client.send(Request<EchoReply>(.get, "redirect", query: ["to": "/echo/after"]))
                print(kind, redirected.value.path)
            }
        }
    }
}
