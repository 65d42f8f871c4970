import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import Tracing

/// An ``Courier/HTTPTransport`` on swift-server's async-http-client: a connection pool per host,
/// HTTP/2 where the server offers it, connect and read timeouts, and request bodies streamed with
/// backpressure when upload progress is observed.
///
/// Redirects are not followed by async-http-client: ``Courier/APIClient`` follows them itself and
/// removes `Authorization`, cookies and the configured authentication headers when a redirect
/// changes origin.
///
/// A transport created with ``init(configuration:)`` owns its `HTTPClient`; call ``shutdown()``
/// when you are done with it (it is also shut down, without waiting, when the transport is freed).
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// Settings of the connection pool and timeouts.
    public struct Configuration: Sendable {
        /// Connections kept open to one host (HTTP/1.1).
        public var maximumConnectionsPerHost: Int = 8
        /// Time allowed to open a connection, and to wait for a pooled one to become free when
        /// ``maximumConnectionsPerHost`` are busy.
        public var connectTimeout: Duration = .seconds(10)
        /// A client-wide limit on the time between two reads of a response, on top of each
        /// request's own ``Courier/TransportRequest/timeout`` (the idle timeout Courier keeps per
        /// request, as on ``Courier/URLSessionTransport``). `nil` by default, so that a request's
        /// timeout alone decides, and a stream given a longer one may stay quiet that long.
        public var readTimeout: Duration? = nil
        /// How long an idle connection stays in the pool.
        public var idleTimeout: Duration = .seconds(60)
        /// Size of the pieces a body is streamed in (files are read one piece at a time, off the
        /// event loop) when it is streamed or upload progress is observed. 256 KiB by default: each
        /// piece costs a hop to NIO's thread pool and back, and with 64 KiB pieces a 256 MiB
        /// upload ran at half of raw async-http-client's speed (`courier-bench upload`).
        public var uploadChunkSize: Int = 256 << 10
        /// Whether `gzip` and `deflate` bodies are decoded, as URLSession does; requests that name
        /// no `Accept-Encoding` then send `Accept-Encoding: gzip, deflate`. On by default.
        public var decodesCompressedBodies = true
        /// The largest body decompression may produce (a guard against decompression bombs: a few
        /// kilobytes of gzip can inflate to gigabytes). A larger one fails with
        /// ``Courier/CourierError/Kind/responseTooLarge``.
        public var maximumDecompressedSize: Int = 256 << 20
        /// Whom to trust over HTTPS and the client certificate to present: the policy's roots,
        /// client identity and minimum TLS version become swift-nio-ssl's `TLSConfiguration`.
        /// Public-key pins are checked on each new connection to a pinned host, after the TLS
        /// handshake and before any request is written to it; a refused connection fails its
        /// requests with ``Courier/CourierError/Kind/untrustedServer``. Only pins on the server's
        /// own key (scope ``Courier/TrustPolicy/PublicKeyPins/Scope/leaf``) can be checked here:
        /// swift-nio-ssl shows async-http-client's connections the server's certificate, not the
        /// rest of the chain. A policy with other pins, or a certificate or key that cannot be
        /// read, fails every request with ``Courier/CourierError/Kind/invalidRequest`` before
        /// anything is sent.
        public var trust: TrustPolicy = .system
        /// An HTTP proxy every request goes through, in a `CONNECT` tunnel (TLS to the server runs
        /// inside it), with Basic credentials when the proxy asks for them.
        public var proxy: Proxy? = nil

        /// Creates the default configuration.
        public init() {}
    }

    /// The underlying client. Requests to hosts with public-key pins (``Configuration/trust``) go
    /// through clients of their own that check the pins; requests sent on this one directly are
    /// not checked.
    public let client: HTTPClient
    private let ownsClient: Bool
    let uploadChunkSize: Int
    /// Whether the client decodes `gzip` and `deflate` bodies.
    let decodesCompressedBodies: Bool
    /// Why no request can be sent: a trust policy or proxy this transport cannot apply.
    package let configurationProblem: CourierError?
    /// The TLS settings the client connects with, to word a refused chain (``ChainDiagnosis``).
    let tlsConfiguration: TLSConfiguration
    /// The clients for hosts with public-key pins.
    let pinned: PinnedConnections
    /// The idle-timeout sweeps, one per event loop of the client's group.
    let idleSweeps: [ObjectIdentifier: IdleSweep]
    /// The sweep for a task on a loop outside that group.
    let fallbackSweep: IdleSweep
    /// The loop each exchange's delegate runs on.
    let loopChoice: LoopChoice
    /// The proxy requests go through (WebSockets too, in a tunnel of their own).
    let proxy: Proxy?

    /// Creates a transport with its own `HTTPClient`.
    public init(configuration: Configuration = Configuration()) {
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .init(configuration.idleTimeout))
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.maximumConnectionsPerHost
        pool.retryConnectionEstablishment = false  // a refused connection fails now, not at the connect timeout
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(configuration.connectTimeout), read: configuration.readTimeout.map { .init($0) }),
            connectionPool: pool)
        if configuration.decodesCompressedBodies {
            clientConfiguration.decompression = .enabled(limit: .size(configuration.maximumDecompressedSize))
        }
        // async-http-client starts a span for every request from the tracer bootstrapped when its
        // configuration is made. With none bootstrapped that is a no-op span whose attributes
        // still cost about 30,000 instructions a request: decided once here, as Courier decides
        // for its own spans (a bootstrapped tracer keeps async-http-client's spans).
        if clientConfiguration.tracing.tracer is NoOpTracer { clientConfiguration.tracing.tracer = nil }
        var problem: CourierError?
        do throws(CourierError) {
            if !configuration.trust.isSystem { clientConfiguration.tlsConfiguration = try configuration.trust.tlsConfiguration() }
            clientConfiguration.proxy = try configuration.proxy?.clientProxy()
            problem = PinnedConnections.problem(with: configuration.trust)
        } catch {
            problem = error
        }
        configurationProblem = problem
        tlsConfiguration = clientConfiguration.tlsConfiguration ?? .makeClientConfiguration()
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        pinned = problem == nil ? PinnedConnections(configuration.trust, configuration: clientConfiguration) : PinnedConnections()
        ownsClient = true
        (idleSweeps, fallbackSweep) = IdleSweep.sweeps(for: client.eventLoopGroup)
        loopChoice = LoopChoice(group: client.eventLoopGroup)
        uploadChunkSize = configuration.uploadChunkSize
        decodesCompressedBodies = configuration.decodesCompressedBodies
        proxy = configuration.proxy
    }

    /// Wraps a client you own and shut down yourself. Give it `redirectConfiguration: .disallow` so
    /// redirects reach ``Courier/APIClient`` and its header rules.
    ///
    /// Prefer a client that only this transport sends through. Each exchange asks
    /// async-http-client for the event loop where this transport's last exchanges left a
    /// connection idle. A connection that other code opened on the same client may live on
    /// another loop, and when an exchange is given it, each of the exchange's callbacks hops to
    /// the asked loop: a wake-up of another thread. With one request at a time on a client whose
    /// only connection another user opened first, `courier-bench transport` measured small GETs
    /// at 0.80–0.84 of that user's speed, against 0.93–1.00 when Courier opened it.
    /// - Parameter decodesCompressedBodies: pass `true` when `client` was created with
    ///   `decompression: .enabled(limit: …)`: requests that name no `Accept-Encoding` then send
    ///   `Accept-Encoding: gzip, deflate`, and a body in another coding fails clearly.
    public init(client: HTTPClient, uploadChunkSize: Int = 256 << 10, decodesCompressedBodies: Bool = false) {
        self.client = client
        ownsClient = false
        (idleSweeps, fallbackSweep) = IdleSweep.sweeps(for: client.eventLoopGroup)
        loopChoice = LoopChoice(group: client.eventLoopGroup)
        self.uploadChunkSize = uploadChunkSize
        self.decodesCompressedBodies = decodesCompressedBodies
        configurationProblem = nil
        proxy = nil
        pinned = PinnedConnections()
        tlsConfiguration = .makeClientConfiguration()  // the wrapped client's own is not readable: only the wording of a refusal uses it
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
        for client in pinned.all { client.shutdown { _ in } }
    }

    /// Shuts down the client this transport created (and those it made for pinned hosts); does
    /// nothing for a client passed in.
    public func shutdown() async throws {
        for client in pinned.all { try await client.shutdown() }
        if ownsClient { try await client.shutdown() }
    }

    /// Sends `request`; returns 3xx responses without following them.
    ///
    /// ``Courier/TransportRequest/timeout`` is an idle timeout, as on ``Courier/URLSessionTransport``:
    /// a server that sends its headers and then stalls for that long fails with
    /// ``Courier/CourierError/Kind/timedOut``; a slow body that keeps arriving does not. A body in a
    /// content coding the client cannot decode (`br`, for example) fails with
    /// ``Courier/CourierError/Kind/invalidResponse``.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        try await ExchangeControl.send(request) { start(request, observer: observer, completion: $0) }
    }

    /// The response for a head that just arrived, and the body length it declares (`nil` for a
    /// body the client decompresses): a coding the client cannot decode and broken framing fail here.
    func head(
        status: HTTPResponseStatus, fields: NIOHTTP1.HTTPHeaders, request: TransportRequest
    ) throws(CourierError) -> (response: TransportResponse, expected: Int64?) {
        let headAt = ContinuousClock.now
        var headers = Courier.HTTPHeaders()
        headers.reserveCapacity(fields.count)
        // The framing fields are noted on the way (a name of another length costs one comparison),
        // so that the usual answer, one plain Content-Length and no coding, is not read again.
        var lengths = 0
        var length: String?
        var coded = false
        for field in fields {
            headers.add(name: field.name, value: field.value)
            switch field.name.utf8.count {
            case 14 where field.name.caseInsensitiveEquals("Content-Length"):
                lengths += 1
                length = field.value
            case 16 where field.name.caseInsensitiveEquals("Content-Encoding"):
                coded = true
            default:
                break
            }
        }
        let encoded = coded && ResponseFraming.isEncoded(headers)
        if encoded, decodesCompressedBodies {
            headers = try Self.decodedHeaders(headers, status: Int(status.code), request: request)
        }
        let expected: Int64? = if encoded || lengths == 0 {
            nil
        } else if lengths == 1, let length, let plain = ResponseFraming.plainDigits(length) {
            plain
        } else {
            try ResponseFraming.declaredLength(headers, url: request.url)
        }
        var response = TransportResponse(url: request.url, statusCode: Int(status.code), headers: headers)
        response.headersReceivedAt = headAt
        return (response, expected)
    }

    /// The headers of a body the client decompressed (without its coding and length), or an error
    /// naming a coding it cannot decode.
    static func decodedHeaders(_ headers: Courier.HTTPHeaders, status: Int, request: TransportRequest) throws(CourierError) -> Courier.HTTPHeaders {
        let coding = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard ["gzip", "x-gzip", "deflate"].contains(coding) else {
            throw CourierError(
                .invalidResponse,
                "\(request.url.hostAndPort) sent a body encoded as \"\(coding)\", which AsyncHTTPClientTransport cannot decode (it decodes gzip and deflate). Use URLSessionTransport, or have the server send gzip.",
                url: request.url, statusCode: status, headers: headers)
        }
        return ResponseFraming.decoded(headers)
    }
}
