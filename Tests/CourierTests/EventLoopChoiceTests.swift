import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Testing

/// async-http-client runs a request's delegate on the loop its task was given, and hops every
/// callback there when the connection lives on another loop. Requests sent one after another on
/// one kept-alive connection run where that connection is, with no hop.
@Suite struct EventLoopChoiceTests {
    @Test func requestsOneAfterAnotherRunOnTheLoopOfTheirConnection() async throws {
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator()).count
        try await withServer { server in
            let transport = AsyncHTTPClientTransport()
            let seen = Locked<[ObjectIdentifier]>([])
            // Progress is reported from the delegate's callbacks, on the task's loop.
            let observer = TransferObserver(download: { _ in
                let loop = MultiThreadedEventLoopGroup.currentEventLoop.map(ObjectIdentifier.init)
                seen.withLock { $0.append(loop ?? ObjectIdentifier(Self.self)) }
            })
            for number in 0..<20 {
                let response = try await transport.send(
                    TransportRequest(url: server.baseURL.appendingPathComponent("sample").appending(queryItems: [URLQueryItem(name: "n", value: "\(number)")])),
                    observer: observer)
                #expect(response.statusCode == 200)
            }
            try await transport.shutdown()
            let loopsSeen = Set(seen.withLock { $0 })
            #expect(!seen.withLock(\.isEmpty))
            // Taking the loops in turn (async-http-client's own choice) would have seen every one.
            #expect(loopsSeen.count == 1, "\(loops) loops in the group; the callbacks ran on \(loopsSeen.count)")
            #expect(!loopsSeen.contains(ObjectIdentifier(Self.self)), "a callback ran off the event loops")
        }
    }
}
