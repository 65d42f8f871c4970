import Courier
import CourierAsyncHTTPClient
import Foundation
import Testing

/// What each transport does with a server that breaks the rules, against a ``HostileServer`` on
/// 127.0.0.1: every case ends in a typed ``CourierError`` or the right value, never a crash or a
/// hang, and a partial body is never stored in the cache.
struct FaultTests {
    /// Sends `request` to a new hostile server running `behaviour`, on a new transport of `kind`.
    static func send<Value>(
        _ request: Request<Value>, on kind: TransportKind, timeout: TimeInterval = 10,
        asyncHTTPClient: AsyncHTTPClientTransport.Configuration = .init(),
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ behaviour: @escaping @Sendable (HostileConnection) -> Void
    ) async throws -> Result<Response<Value>, CourierError> {
        try await withClient(on: kind, timeout: timeout, asyncHTTPClient: asyncHTTPClient, configure: configure, serving: behaviour) { client in
            do throws(CourierError) {
                return .success(try await client.send(request))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Runs `body` with a client of `kind` (no cache, no error presenter) talking to a new hostile
    /// server running `behaviour`.
    static func withClient<Result>(
        on kind: TransportKind, timeout: TimeInterval = 60,
        asyncHTTPClient: AsyncHTTPClientTransport.Configuration = .init(),
        configure: (inout ClientConfiguration) -> Void = { _ in },
        serving behaviour: @escaping @Sendable (HostileConnection) -> Void,
        _ body: (APIClient) async throws -> Result
    ) async throws -> Result {
        let server = try HostileServer(behaviour)
        defer { server.stop() }
        let transport: any HTTPTransport = kind == .urlSession ? URLSessionTransport() : AsyncHTTPClientTransport(configuration: asyncHTTPClient)
        defer { if let ahc = transport as? AsyncHTTPClientTransport { Task { try? await ahc.shutdown() } } }
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.timeout = timeout
        configure(&configuration)
        return try await body(APIClient(configuration: configuration, transport: transport))
    }

    /// The error of a result that must have failed.
    static func failure<Value>(_ result: Result<Response<Value>, CourierError>, sourceLocation: SourceLocation = #_sourceLocation) throws -> CourierError {
        switch result {
        case .success(let response):
            Issue.record("expected an error, got \(response.statusCode) with \(response.data.count) bytes", sourceLocation: sourceLocation)
            throw CancellationError()
        case .failure(let error):
            return error
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStallAfterTheHeadersTimesOut(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "stall"), on: kind, timeout: 1) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\nabc")
            connection.holdStill()
        }
        let error = try Self.failure(result)
        #expect(error.kind == .timedOut, "\(error)")
        #expect(error.classification == .timedOut)
    }

    /// The partial body is neither returned nor stored in the cache.
    @Test(arguments: TransportKind.allCases)
    func aBodyShorterThanItsContentLengthIsALostConnection(kind: TransportKind) async throws {
        try await withTemporaryCache { cache, directory in
            let result = try await Self.send(Request<Data>(.get, "short", cache: .both), on: kind, configure: { $0.cache = cache }) { connection in
                connection.readHead()
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\n" + String(repeating: "x", count: 40))
            }
            let error = try Self.failure(result)
            #expect(error.kind == .connectionLost, "\(error)")
            #expect(error.classification == .connectionLost)
            #expect(error.message.contains("40 of 100 bytes") || kind == .asyncHTTPClient, "\(error.message)")
            #expect(!error.userMessage.lowercased().contains("curl"), "\(error.userMessage)")
            #expect(directory.files.filter { $0.hasSuffix(".apicache") }.isEmpty, "\(directory.files)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aResetMidBodyIsALostConnection(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "reset"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 1000))
            connection.reset()
        }
        let error = try Self.failure(result)
        #expect(error.kind == .connectionLost, "\(error)")
        #expect(!error.message.contains("Check that the server is running"), "\(error.message)")
    }

    @Test(arguments: TransportKind.allCases)
    func aCloseBeforeAnyResponseIsALostConnection(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "close"), on: kind) { connection in
            connection.readHead()
            connection.close()
        }
        let error = try Self.failure(result)
        #expect(error.kind == .connectionLost, "\(error)")
    }

    @Test(arguments: TransportKind.allCases)
    func conflictingContentLengthsAreRejected(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "conflict"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789")
        }
        let error = try Self.failure(result)
        #expect(error.kind == .invalidResponse, "\(error)")
    }

    @Test(arguments: TransportKind.allCases)
    func aMegabyteResponseHeaderIsRejected(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "huge-header"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "h", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nok")
        }
        let error = try Self.failure(result)
        #expect(error.kind == .invalidResponse, "\(error)")
    }

    /// A field of spaces alone is an empty field (RFC 9110 §5.5) that async-http-client reads as
    /// such; swift-corelibs-foundation up to Swift 6.3 refuses the whole response ("Failed writing
    /// header"), so there URLSession fails it whole, never in part. Found scoring the http-state
    /// cookie cases.
    @Test(arguments: TransportKind.allCases)
    func aFieldOfSpacesAloneIsReadOrRefusedWhole(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "blank-field"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie:    \r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        }
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation before its pull request #5527 (Swift 6.3 and older) refuses
        // the whole response; with the fix it reads the field as empty, as async-http-client does.
        if kind == .urlSession, case .failure(let error) = result {
            #expect(error.kind == .invalidResponse, "\(error)")
            return
        }
        #endif
        let response = try result.get()
        #expect(response.value == Data("ok".utf8))
    }

    @Test(arguments: TransportKind.allCases)
    func aMalformedChunkSizeIsRejected(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "chunks"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\nzz\r\nworld\r\n0\r\n\r\n")
        }
        let error = try Self.failure(result)
        #expect(error.kind == .invalidResponse, "\(error)")
    }

    @Test(arguments: TransportKind.allCases)
    func anHTTP10BodyEndedByTheCloseArrivesWhole(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "old"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello, world")
        }
        let response = try result.get()
        #expect(response.value == Data("hello, world".utf8))
    }

    @Test(arguments: TransportKind.allCases)
    func aServerThatNeverReadsTheUploadTimesOut(kind: TransportKind) async throws {
        let body = Data(repeating: 7, count: 16 << 20)
        let request = Request<Data>(.post, "upload", body: .data(body, contentType: "application/octet-stream"))
        let result = try await Self.send(request, on: kind, timeout: 1) { connection in
            connection.shrinkReceiveBuffer()
            connection.readHead()
            connection.holdWithoutReading()
        }
        let error = try Self.failure(result)
        #expect(error.kind == .timedOut, "\(error)")
    }

    /// A connection the server resets while the request body is still going out (libcurl's "Send
    /// failure: Broken pipe" or "Connection reset by peer") is lost, on both transports alike: what
    /// a resumable upload resumes after.
    @Test(arguments: TransportKind.allCases)
    func aResetWhileTheBodyGoesOutIsALostConnection(kind: TransportKind) async throws {
        let body = Data(repeating: 7, count: 16 << 20)
        let request = Request<Data>(.patch, "upload", body: .data(body, contentType: "application/octet-stream"))
        let result = try await Self.send(request, on: kind) { connection in
            connection.shrinkReceiveBuffer()
            connection.readHead()
            _ = connection.read(64 * 1024)
            connection.reset()
        }
        let error = try Self.failure(result)
        #expect(error.kind == .connectionLost, "\(error)")
    }

    @Test(arguments: TransportKind.allCases, ["gzip", "deflate"])
    func compressedBodiesArriveDecoded(kind: TransportKind, coding: String) async throws {
        let encoded = coding == "gzip" ? CompressedFixtures.gzip : CompressedFixtures.deflate
        let result = try await Self.send(Request<JSONValue>(.get, "compressed"), on: kind) { connection in
            let head = connection.readHead() ?? ""
            let asked = head.lowercased().contains("accept-encoding:") ? "yes" : "no"
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: \(coding)\r\nX-Asked: \(asked)\r\nContent-Length: \(encoded.count)\r\n\r\n")
            connection.write(encoded)
        }
        let response = try result.get()
        #expect(response.data == CompressedFixtures.json)
        #expect(response.value["message"]?.stringValue == "compressed")
        #expect(response.headers["X-Asked"] == "yes", "the transport did not send Accept-Encoding")
        #expect(response.headers["Content-Encoding"] == nil)
    }

    /// A coding the transport cannot decode (`br` with bytes that are not brotli, or any
    /// coding async-http-client lacks) is an error, never the raw bytes passed on as the body.
    @Test(arguments: TransportKind.allCases)
    func aBodyInAnUndecodableCodingIsRejected(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "brotli"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 16\r\n\r\n0123456789abcdef")
        }
        let error = try Self.failure(result)
        #expect(error.kind == .invalidResponse, "\(error)")
    }

    /// 4 MiB of zeros in 4 KB of gzip, against a 1 MiB limit.
    @Test(arguments: TransportKind.allCases)
    func aDecompressionBombStopsAtTheLimit(kind: TransportKind) async throws {
        var limited = AsyncHTTPClientTransport.Configuration()
        limited.maximumDecompressedSize = 1 << 20
        let result = try await Self.send(
            Request<Data>(.get, "bomb"), on: kind, asyncHTTPClient: limited, configure: { $0.maximumResponseSize = 1 << 20 }
        ) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(CompressedFixtures.bomb.count)\r\n\r\n")
            connection.write(CompressedFixtures.bomb)
        }
        let error = try Self.failure(result)
        #expect(error.kind == .responseTooLarge, "\(error)")
    }

    @Test(arguments: TransportKind.allCases)
    func aRedirectLoopFails(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "loop"), on: kind) { connection in
            while connection.readHead() != nil {
                connection.write("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n")
            }
        }
        let error = try Self.failure(result)
        #expect(error.kind == .redirectFailed, "\(error)")
    }

    @Test(arguments: TransportKind.allCases)
    func aRedirectToAnotherSchemeFails(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "away"), on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 301 Moved Permanently\r\nLocation: ftp://127.0.0.1/file\r\nContent-Length: 0\r\n\r\n")
        }
        let error = try Self.failure(result)
        #expect(error.kind == .redirectFailed, "\(error)")
    }

    /// A 401 with a challenge ends at once as `.unauthorized`, with its body: URLSession on Linux
    /// used to hang on it.
    @Test(arguments: TransportKind.allCases, ["Basic realm=\"api\"", "Bearer realm=\"api\", error=\"invalid_token\""])
    func a401WithAChallengeIsHandedBack(kind: TransportKind, challenge: String) async throws {
        let result = try await Self.send(Request<Data>(.get, "private"), on: kind, timeout: 5) { connection in
            while connection.readHead() != nil {
                let body = #"{"error":"Sign in first."}"#
                connection.write("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: \(challenge)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
        }
        let error = try Self.failure(result)
        #expect(error.kind == .httpStatus(401), "\(error)")
        #expect(error.classification == .unauthorized)
        #expect(error.userMessage == "Sign in first.")
    }

    @Test(arguments: TransportKind.allCases)
    func a407IsHandedBack(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "proxy"), on: kind, timeout: 5) { connection in
            while connection.readHead() != nil {
                let body = "proxy says no"
                connection.write("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
        }
        let error = try Self.failure(result)
        #expect(error.kind == .httpStatus(407), "\(error)")
        #expect(error.body == Data("proxy says no".utf8))
    }

    /// A 304 to the caller's own `If-None-Match` is an answer, not an error.
    @Test(arguments: TransportKind.allCases)
    func aCallersOwnConditionalRequestGetsIts304(kind: TransportKind) async throws {
        let request = Request<Data>(.get, "document", headers: ["If-None-Match": "\"v1\""])
        let result = try await Self.send(request, on: kind) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n")
        }
        let response = try result.get()
        #expect(response.statusCode == 304)
        #expect(response.headers["ETag"] == "\"v1\"")
    }

    /// A slow 100 KB body in 1,000 pieces: one progress report per 1% at most (plus the last),
    /// not one per piece; with no `Content-Length`, far fewer reports than pieces.
    @Test(arguments: TransportKind.allCases, [true, false])
    func aSlowBodyInAThousandPiecesGivesFewProgressReports(kind: TransportKind, declaresLength: Bool) async throws {
        let reports = Locked<[TransferProgress]>([])
        let request = Request<Data>(.get, "slow").onDownloadProgress { progress in reports.withLock { $0.append(progress) } }
        let result = try await Self.send(request, on: kind, timeout: 30) { connection in
            connection.readHead()
            let piece = String(repeating: "p", count: 100)
            if declaresLength {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n")
            } else {
                connection.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            }
            for _ in 0..<1000 {
                connection.write(piece)
                usleep(100)  // the server is slow: the body arrives piece by piece
            }
        }
        let response = try result.get()
        #expect(response.data.count == 100_000)
        let delivered = reports.withLock { $0 }
        #expect(delivered.last == TransferProgress(completed: 100_000, total: 100_000))
        if declaresLength {
            #expect(delivered.count <= 101, "\(delivered.count) reports")
        } else {
            #expect(delivered.count < 500, "\(delivered.count) reports")
        }
    }
}

/// The three faults of issue 41: what a transport does between two requests on one connection,
/// and with a body that arrives slower than the timeout allows in total but never pauses for longer.
extension FaultTests {
    /// The timeout is an idle timeout on both transports: a body whose bytes come half a second
    /// apart arrives whole although it takes longer than the timeout in all.
    @Test(arguments: TransportKind.allCases)
    func aSlowBodyThatNeverPausesForTheTimeoutArrivesWhole(kind: TransportKind) async throws {
        let result = try await Self.send(Request<Data>(.get, "trickle"), on: kind, timeout: 2) { connection in
            connection.readHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nContent-Type: text/plain\r\n\r\n")
            for byte in "trickles" {
                usleep(500_000)  // the server is slow on purpose: 4 s in all, under a 2 s timeout
                connection.write(String(byte))
            }
        }
        let response = try result.get()
        #expect(response.value == Data("trickles".utf8))
    }

    /// A server that takes a POST's whole body on a connection it has used before and then resets
    /// it: the request fails at once as a lost connection (the outbox's lost acknowledgement), and
    /// its body is never sent again, whole or cut short.
    @Test(arguments: TransportKind.allCases)
    func aResetAfterAPostsBodyFailsAtOnceAndIsNeverResent(kind: TransportKind) async throws {
        let body = Data(repeating: 0x61, count: 100_000)
        let posts = Locked<[Int]>([])
        let error = try await Self.withClient(on: kind, serving: { connection in
            while let head = connection.readHead() {
                if head.hasPrefix("GET") {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                    continue
                }
                // A body sent chunked (no Content-Length) is read to its size plus the framing.
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
                let received = connection.readBody(length: length ?? body.count)
                posts.withLock { $0.append(received) }
                connection.reset()
                return
            }
        }) { client -> CourierError? in
            let warmUp = try await client.send(Request<Data>(.get, "warm-up"))
            #expect(warmUp.value == Data("ok".utf8))
            do throws(CourierError) {
                _ = try await client.send(Request<Data>(.post, "orders", body: .data(body, contentType: "application/octet-stream")))
                return nil
            } catch {
                return error
            }
        }
        let failure = try #require(error, "the POST succeeded against a server that reset it")
        #expect(failure.kind == .connectionLost, "\(failure)")
        // URLSession (Linux) may send the head once more with no body before Courier stops it.
        let bodies = posts.withLock { $0 }
        #expect(bodies.first == body.count && bodies.dropFirst().allSatisfy { $0 == 0 }, "the server saw POST bodies of \(bodies) bytes")
    }

    /// A GET on a kept-alive connection that the server closes (or resets) after reading it,
    /// before answering (what a server that drops an idle connection does to the request that
    /// reuses it), is sent once more on a new connection and answered, on both transports.
    @Test(arguments: TransportKind.allCases, [false, true])
    func aGetOnAConnectionDroppedAsItWasReusedIsSentAgain(kind: TransportKind, resets: Bool) async throws {
        let paths = Locked<[String]>([])
        let second = try await Self.withClient(on: kind, timeout: 10, serving: { connection in
            var answered = 0
            while let head = connection.readHead() {
                let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                paths.withLock { $0.append(path) }
                if path == "/second", answered > 0 {
                    if resets { connection.reset() } else { connection.close() }
                    return
                }
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                answered += 1
            }
        }) { client in
            _ = try await client.send(Request<Data>(.get, "first"))
            return try await client.send(Request<Data>(.get, "second")).value
        }
        #expect(second == Data("ok".utf8))
        #expect(paths.withLock { $0 } == ["/first", "/second", "/second"])
    }

    /// After a response whose framing is broken (two different `Content-Length`s), the next
    /// request on the same client, to another path, is answered: the broken connection is not
    /// reused, and nothing reports it as the app's mistake (RFC 9112 §6.3). Two shapes: the body
    /// as long as the longer length; and lengths 2 and 5 with a 7-byte body whose last 2 bytes
    /// come only when the connection is used again, before the next answer (what a client that
    /// kept the connection finds at the start of its next reply).
    @Test(arguments: TransportKind.allCases, [false, true])
    func theRequestAfterAFramingErrorIsAnswered(kind: TransportKind, bytesLeftOver: Bool) async throws {
        let (first, second) = try await Self.withClient(on: kind, timeout: 10, serving: { connection in
            var leftOver = ""
            while let head = connection.readHead() {
                if head.hasPrefix("GET /conflict") {
                    if bytesLeftOver {
                        connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n01234")
                        leftOver = "56"
                    } else {
                        connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789")
                    }
                } else {
                    connection.write(leftOver + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                    leftOver = ""
                }
            }
        }) { client -> (CourierError?, Result<Response<Data>, CourierError>) in
            var first: CourierError?
            do throws(CourierError) {
                _ = try await client.send(Request<Data>(.get, "conflict"))
            } catch {
                first = error
            }
            do throws(CourierError) {
                return (first, .success(try await client.send(Request<Data>(.get, "next"))))
            } catch {
                return (first, .failure(error))
            }
        }
        #expect(first?.kind == .invalidResponse, "\(String(describing: first))")
        switch second {
        case .success(let response):
            #expect(response.value == Data("ok".utf8))
        case .failure(let error):
            Issue.record("the request after the framing error failed: \(error)")
        }
    }
}
