import AsyncHTTPClient
import Courier
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import WSCompression
import WSCore

extension AsyncHTTPClientTransport: WebSocketTransport {
    /// Opens a WebSocket on a connection of its own, on the client's event loops, with the
    /// transport's TLS configuration and pins: swift-nio's upgrade handshake, then swift-websocket's
    /// frame handling (``NIOWebSocketConnection``). A refused handshake is read as a response.
    package func openWebSocket(_ request: TransportRequest, options: WebSocketOptions) async throws -> WebSocketHandshake {
        if let configurationProblem { throw configurationProblem }
        let url = request.url
        let scheme = url.scheme?.lowercased() ?? ""
        guard let host = url.host, !host.isEmpty, ["http", "https", "ws", "wss"].contains(scheme) else {
            throw CourierError(.invalidURL, "A WebSocket URL is ws, wss, http or https with a host, not \(url.absoluteString). Nothing was sent.", url: url)
        }
        let secure = scheme == "https" || scheme == "wss"
        let port = url.port ?? (secure ? 443 : 80)
        let sslContext: NIOSSLContext?
        do {
            sslContext = secure ? try NIOSSLContext(configuration: tlsConfiguration) : nil
        } catch {
            throw CourierError(.invalidRequest, "The TLS configuration cannot be used: \(error). Nothing was sent.", url: url, underlyingError: error)
        }
        let extensions: [any WebSocketExtensionBuilder] = options.compression
            ? [WebSocketExtensionFactory.perMessageDeflate(maxDecompressedFrameSize: options.maximumMessageSize).build()] : []
        let head = Self.handshakeHead(request, host: host, port: port, secure: secure, options: options, extensions: extensions)
        let pins = pinned.pins(for: url)
        // The handshake's wait: the request's timeout, at most a day.
        let waitSeconds = min(request.boundedTimeout, 86_400)
        let timeout = TimeAmount.nanoseconds(Int64(waitSeconds * 1_000_000_000))
        let opening = WebSocketOpening()
        let tunnel = proxy.map { WebSocketOpening.Tunnel(proxy: $0, host: host, port: port) }
        let upgrade: EventLoopFuture<WebSocketOpening.Outcome>
        do {
            upgrade = try await withTaskCancellationHandler {
                try await ClientBootstrap(group: client.eventLoopGroup)
                    .connectTimeout(timeout)
                    .channelOption(.allowRemoteHalfClosure, value: true)  // see InputEndRelay
                    .connect(host: proxy?.host ?? host, port: proxy?.port ?? port) { channel in
                        opening.configure(
                            channel, tunnel: tunnel, sslContext: sslContext, serverName: host.isIPAddress ? nil : host, pins: pins, head: head,
                            maximumMessageSize: options.maximumMessageSize, timeout: timeout)
                    }
            } onCancel: {
                opening.cancel()
            }
        } catch {
            throw Self.courierError(for: error, request: request, proxy: proxy)
        }
        let outcome: WebSocketOpening.Outcome
        do {
            outcome = try await withTaskCancellationHandler {
                try await upgrade.get()
            } onCancel: {
                opening.cancel()
            }
        } catch {
            if Task.isCancelled { throw CourierError.cancelled(url) }
            if opening.timedOut {
                throw CourierError(.timedOut, "\(url.hostAndPort) did not answer the WebSocket handshake within \(waitSeconds.secondsPhrase).", url: url, underlyingError: error)
            }
            if let mismatch = error as? PinMismatch { throw CourierError.untrustedServer(url, reason: mismatch.reason, underlyingError: error) }
            if let refusal = error as? NIOHTTP1ProxyConnectHandler.Error { throw Self.tunnelRefused(refusal, proxy: proxy, url: url) }
            if let closed = error as? ChannelError, [.inappropriateOperationForState, .ioOnClosedChannel, .eof].contains(closed) {
                throw CourierError(
                    .connectionLost, "\(url.hostAndPort) closed the connection without answering the WebSocket handshake.", url: url,
                    underlyingError: error)
            }
            throw Self.courierError(for: error, request: request, proxy: proxy)
        }
        switch outcome {
        case .refused(let channel):
            return WebSocketHandshake(response: try await Self.refusal(channel, request: request), connection: nil)
        case .upgraded(let channel, let responseHead):
            var response = TransportResponse(url: url, statusCode: Int(responseHead.status.code), headers: Courier.HTTPHeaders())
            for field in responseHead.headers { response.headers.add(name: field.name, value: field.value) }
            let built: [any WebSocketExtension]
            do {
                try Self.checkSubprotocol(responseHead.headers, offered: options.subprotocols, url: url)
                var fields = HTTPFields()
                for field in responseHead.headers {
                    if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
                }
                built = try extensions.buildClientExtensions(from: fields)
            } catch {
                try? await channel.channel.close()
                throw error as? CourierError ?? CourierError(
                    .invalidResponse, "\(url.hostAndPort) answered the WebSocket handshake with extensions that cannot be used: \(error).",
                    url: url, underlyingError: error)
            }
            let connection = await NIOWebSocketConnection.start(channel, extensions: built, pongs: opening.pongs, options: options, url: url)
            return WebSocketHandshake(response: response, connection: connection)
        }
    }

    /// Why `proxy` opened no tunnel to `url`'s host, in the words async-http-client's own requests use.
    private static func tunnelRefused(_ error: NIOHTTP1ProxyConnectHandler.Error, proxy: Proxy?, url: URL) -> CourierError {
        let through = proxy.map { "\($0)" } ?? "The proxy"
        if error == .proxyAuthenticationRequired() {
            return CourierError(
                .cannotConnect,
                "The \(through) refused the credentials given for it (407 Proxy Authentication Required), so \(url.hostAndPort) was not reached.",
                url: url, underlyingError: error)
        }
        return CourierError(.cannotConnect, "The \(through) did not open a tunnel to \(url.hostAndPort) (\(error)).", url: url, underlyingError: error)
    }

    /// The handshake request: the request's own headers, `Host`, the subprotocols and extensions offered.
    private static func handshakeHead(
        _ request: TransportRequest, host: String, port: Int, secure: Bool, options: WebSocketOptions,
        extensions: [any WebSocketExtensionBuilder]
    ) -> HTTPRequestHead {
        var headers = NIOHTTP1.HTTPHeaders()
        let defaultPort = port == (secure ? 443 : 80)
        let hostField = host.contains(":") ? "[\(host)]" : host
        headers.add(name: "Host", value: defaultPort ? hostField : "\(hostField):\(port)")
        for field in request.headers where field.name.lowercased() != "host" {
            headers.add(name: field.name, value: field.value)
        }
        if !options.subprotocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: options.subprotocols.joined(separator: ", "))
        }
        for offer in extensions.map({ $0.clientRequestHeader() }) where !offer.isEmpty {
            headers.add(name: "Sec-WebSocket-Extensions", value: offer)
        }
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? request.url.path
        components?.percentEncodedPath = ""
        let target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
    }

    /// Fails a handshake whose server chose a subprotocol that was not offered (RFC 6455 section 4.1).
    private static func checkSubprotocol(_ headers: NIOHTTP1.HTTPHeaders, offered: [String], url: URL) throws(CourierError) {
        let chosen = headers["Sec-WebSocket-Protocol"]
        guard let name = chosen.first?.trimmingCharacters(in: .whitespaces) else { return }
        guard chosen.count == 1, offered.contains(name) else {
            throw CourierError(
                .invalidResponse,
                "\(url.hostAndPort) chose the WebSocket subprotocol \"\(chosen.joined(separator: ", "))\", which was not offered (\(offered.isEmpty ? "none was" : offered.joined(separator: ", "))).",
                url: url)
        }
    }

    /// The response of a refused handshake, with its body up to the request's size limit.
    private static func refusal(
        _ channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>, request: TransportRequest
    ) async throws -> TransportResponse {
        let limit = request.maximumResponseSize ?? (1 << 20)
        var response = TransportResponse(url: request.url, statusCode: 0, headers: Courier.HTTPHeaders())
        do {
            try await channel.executeThenClose { inbound, _ in
                var body = Data()
                loop: for try await part in inbound {
                    switch part {
                    case .head(let head):
                        response.statusCode = Int(head.status.code)
                        for field in head.headers { response.headers.add(name: field.name, value: field.value) }
                    case .body(let buffer):
                        guard Int64(body.count + buffer.readableBytes) <= limit else {
                            throw CourierError(
                                .responseTooLarge, "\(request.url.hostAndPort) refused the WebSocket handshake with a body larger than \(limit) bytes.",
                                url: request.url, statusCode: response.statusCode, headers: response.headers)
                        }
                        body.append(contentsOf: buffer.readableBytesView)
                    case .end:
                        break loop
                    }
                }
                response.body = body
            }
        } catch let error as CourierError {
            throw error
        } catch {
            throw courierError(for: error, request: request, proxy: nil)  // the connection is open: no failure here is one to connect
        }
        return response
    }
}

/// One handshake's connection while it opens: its pipeline, pins and timeout, and cancellation.
final class WebSocketOpening: Sendable {
    enum Outcome: Sendable {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPResponseHead)
        case refused(NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>)
    }

    /// A `CONNECT` tunnel through an HTTP proxy to the server's host and port.
    struct Tunnel: Sendable {
        let host: String
        let port: Int
        let headers: NIOHTTP1.HTTPHeaders

        init(proxy: AsyncHTTPClientTransport.Proxy, host: String, port: Int) {
            self.host = host.contains(":") ? "[\(host)]" : host
            self.port = port
            var headers = NIOHTTP1.HTTPHeaders()
            headers.add(name: "Host", value: "\(self.host):\(port)")
            if let user = proxy.user {
                let credentials = HTTPClient.Authorization.basic(username: user, password: proxy.password ?? "")
                headers.add(name: "Proxy-Authorization", value: credentials.headerValue)
            }
            self.headers = headers
        }
    }

    private struct State {
        var channel: (any Channel)?
        var cancelled = false
        var timedOut = false
    }

    private let state = Locked(State())
    /// The app's pings on the connection, answered by the pongs ``ServerFrameCheck`` sees.
    let pongs = PongWaiters()

    /// Whether the handshake ran out of time.
    var timedOut: Bool { state.withLock { $0.timedOut } }

    /// Closes the connection of a cancelled handshake (or marks it to close once made).
    func cancel() {
        let channel = state.withLock { state in
            state.cancelled = true
            return state.channel
        }
        channel?.close(promise: nil)
    }

    /// Sets up `channel` (on its loop): the proxy's tunnel when there is one, TLS, then, once the
    /// handshake is done and the pins hold, the HTTP upgrade; closes it at `timeout` unless the
    /// upgrade ended first.
    func configure(
        _ channel: any Channel, tunnel: Tunnel?, sslContext: NIOSSLContext?, serverName: String?, pins: TrustPolicy.PublicKeyPins?, head: HTTPRequestHead,
        maximumMessageSize: Int, timeout: TimeAmount
    ) -> EventLoopFuture<EventLoopFuture<Outcome>> {
        let cancelled = state.withLock { state in
            state.channel = channel
            return state.cancelled
        }
        if cancelled { return channel.eventLoop.makeFailedFuture(CancellationError()) }
        let outcome = channel.eventLoop.makePromise(of: Outcome.self)
        let deadline = channel.eventLoop.scheduleTask(in: timeout) { [state] in
            state.withLock { $0.timedOut = true }
            channel.close(promise: nil)
        }
        outcome.futureResult.whenComplete { _ in deadline.cancel() }
        channel.closeFuture.whenComplete { _ in outcome.fail(ChannelError.ioOnClosedChannel) }
        let session = { @Sendable (channel: any Channel) throws -> Void in
            let relay = InputEndRelay()
            try channel.pipeline.syncOperations.addHandler(relay)
            let replay = NIOLoopBound(relay, eventLoop: channel.eventLoop)
            let upgrade = { @Sendable (channel: any Channel) throws -> Void in
                outcome.completeWith(try Self.upgrade(channel, head: head, maximumMessageSize: maximumMessageSize, pongs: self.pongs, relay: replay))
            }
            if let sslContext {
                let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: serverName)
                try channel.pipeline.syncOperations.addHandler(tls)
                try channel.pipeline.syncOperations.addHandler(HandshakeGate(pins: pins, then: upgrade, failed: { outcome.fail($0) }))
            } else {
                try upgrade(channel)
            }
        }
        return channel.eventLoop.makeCompletedFuture {
            if let tunnel {
                try Self.openTunnel(tunnel, on: channel, timeout: timeout).whenComplete { result in
                    do {
                        try result.get()
                        try session(channel)
                    } catch {
                        outcome.fail(error)
                        channel.close(promise: nil)
                    }
                }
            } else {
                try session(channel)
            }
            return outcome.futureResult
        }
    }

    /// Asks the proxy on `channel` for a tunnel (swift-nio-extras' `CONNECT` handler); once it is
    /// open, the HTTP handlers that asked leave the pipeline, which then reaches the server.
    private static func openTunnel(_ tunnel: Tunnel, on channel: any Channel, timeout: TimeAmount) throws -> EventLoopFuture<Void> {
        let opened = channel.eventLoop.makePromise(of: Void.self)
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
        let connect = NIOHTTP1ProxyConnectHandler(
            targetHost: tunnel.host, targetPort: tunnel.port, headers: tunnel.headers, deadline: .now() + timeout, promise: opened)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(encoder)
        try pipeline.addHandler(decoder)
        try pipeline.addHandler(connect)
        // The decoder leaves once its read is over; nothing else may be written before it has
        // (it reads the requests written past it as HTTP parts).
        let asked = NIOLoopBound((encoder, decoder), eventLoop: channel.eventLoop)
        return opened.futureResult.flatMap {
            let encoderLeft = channel.eventLoop.makePromise(of: Void.self)
            let decoderLeft = channel.eventLoop.makePromise(of: Void.self)
            channel.pipeline.syncOperations.removeHandler(asked.value.0, promise: encoderLeft)
            channel.pipeline.syncOperations.removeHandler(asked.value.1, promise: decoderLeft)
            return encoderLeft.futureResult.and(decoderLeft.futureResult).map { _ in }
        }
    }

    /// Adds the HTTP upgrade to `channel`, which writes the handshake request at once.
    private static func upgrade(
        _ channel: any Channel, head: HTTPRequestHead, maximumMessageSize: Int, pongs: PongWaiters, relay: NIOLoopBound<InputEndRelay>
    ) throws -> EventLoopFuture<Outcome> {
        let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(
            maxFrameSize: maximumMessageSize,
            // Frame errors reach NIOWebSocketConnection, which closes with the code that says why.
            enableAutomaticErrorHandling: false,
            upgradePipelineHandler: { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    let compressed = response.headers["Sec-WebSocket-Extensions"].contains { $0.lowercased().contains("permessage-deflate") }
                    try channel.pipeline.syncOperations.addHandler(ServerFrameCheck(compressed: compressed, pongs: pongs))
                    // Frames wait here only until the connection's task takes them (the inbox is
                    // the queue): a frame or two, not NIO's default ten, bounds what a server that
                    // sends frames of the largest message size can make the client hold.
                    let upgraded = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2)))
                    // After this turn of the loop, which hands the upgraded pipeline the frames buffered meanwhile.
                    channel.eventLoop.execute { relay.value.release() }
                    return .upgraded(upgraded, response)
                }
            })
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Outcome>(
            upgradeRequestHead: head, upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    let refused = try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    channel.eventLoop.execute { relay.value.release() }
                    return .refused(refused)
                }
            })
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        pipeline.leftOverBytesStrategy = .forwardBytes
        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
        let upgradeHandler = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPClientUpgradeHandler<Outcome>.self)
        try channel.pipeline.syncOperations.addHandler(ResponseHeadWatch(relay: relay.value), position: .before(upgradeHandler))
        return upgraded
    }
}

/// Holds the HTTP upgrade back until the TLS handshake is done and the host's pins hold, so that
/// nothing of the request (its credentials least of all) reaches a server that is not trusted.
private final class HandshakeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let pins: TrustPolicy.PublicKeyPins?
    private let then: @Sendable (any Channel) throws -> Void
    private let failed: @Sendable (any Error) -> Void

    init(pins: TrustPolicy.PublicKeyPins?, then: @escaping @Sendable (any Channel) throws -> Void, failed: @escaping @Sendable (any Error) -> Void) {
        self.pins = pins
        self.then = then
        self.failed = failed
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case TLSUserEvent.handshakeCompleted = event else { return context.fireUserInboundEventTriggered(event) }
        let channel = context.channel
        let proceed: @Sendable () -> Void = { [then, failed] in
            do {
                try then(channel)
            } catch {
                failed(error)
                channel.close(promise: nil)
            }
        }
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
        guard let pins else { return proceed() }
        pins.check(channel).whenComplete { [failed] result in
            switch result {
            case .success: proceed()
            case .failure(let error): failed(error)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failed(error)
        context.close(promise: nil)
    }
}

extension String {
    /// Whether this is an IPv4 or IPv6 address rather than a name (which TLS cannot send as SNI).
    var isIPAddress: Bool { (try? SocketAddress(ipAddress: self, port: 0)) != nil }
}
