import Foundation

extension APIClient {
    /// Opens a WebSocket to `request`'s URL (`http` becomes `ws`, `https` `wss`).
    ///
    /// Everything of ``send(_:)`` applies to the handshake: the base URL and API path, headers,
    /// captured credentials and a refresh after a 401, retries of failed connections, the
    /// delegate's hooks, the trust policy, metrics and tracing (a span per connection, open until
    /// it closes). A status other than `101` throws as a ``send(_:)`` would, with the response's
    /// body.
    ///
    /// On ``URLSessionTransport`` under Linux this fails at once: swift-corelibs-foundation has no
    /// WebSocket. Use `AsyncHTTPClientTransport` (the `CourierAsyncHTTPClient` product) there.
    /// - Parameters:
    ///   - request: a `GET` without a body.
    ///   - options: subprotocols, compression, the largest message, pings, reconnection.
    ///   - onConnect: runs on each new connection before its messages are read (the first one
    ///     included): what a session must send first, such as its subscriptions. When it throws,
    ///     the socket closes and the call (or the reading, after a reconnect) fails.
    public func webSocket(
        _ request: Request<Data>, options: WebSocketOptions = WebSocketOptions(),
        onConnect: (@Sendable (WebSocket) async throws -> Void)? = nil
    ) async throws(CourierError) -> WebSocket {
        if let policy = options.reconnection { try RequestValidation.checkRetryPolicy(policy, "WebSocketOptions.reconnection") }
        let opened = try await openWebSocket(request, options: options)
        let socket = WebSocket(
            opened,
            reopening: options.reconnection.map {
                WebSocket.Reopening(client: self, request: request, options: options, policy: $0, onConnect: onConnect)
            })
        if let onConnect {
            do {
                try await onConnect(socket)
            } catch {
                try? await socket.close(.goingAway)
                throw CourierError(
                    .rejected, "The onConnect hook of the WebSocket to \(socket.url.hostAndPort) failed: \(error)", url: socket.url,
                    underlyingError: error)
            }
        }
        return socket
    }

    /// One handshake through the pipeline, and the connection it opened with its open record.
    func openWebSocket(_ request: Request<Data>, options: WebSocketOptions) async throws(CourierError) -> WebSocket.Connection {
        try await recorded(request.settings) { record throws(CourierError) in
            let upgrade = try webSocketUpgrade(request.settings, options: options)
            record.upgrade = upgrade
            let response: TransportResponse
            do throws(CourierError) {
                response = try await perform(request.settings, record: &record)
            } catch {
                upgrade.take()?.abandon()
                throw error
            }
            guard response.statusCode == 101, let connection = upgrade.take() else {
                throw CourierError(
                    .httpStatus(response.statusCode),
                    "The server answered \(response.statusCode) (\(HTTPStatus.reason(response.statusCode))) to the WebSocket handshake GET \(response.url.path), not 101 (Switching Protocols): it does not serve a WebSocket there.",
                    url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
            }
            notifyAnswer(from: response.url)
            // The record stays open until the connection closes.
            return WebSocket.Connection(
                connection: connection, response: response, requestID: record.id, record: WebSocketRecord(client: self, record: record))
        }
    }

    /// The upgrade for `settings`, or why it cannot be sent.
    private func webSocketUpgrade(_ settings: RequestSettings, options: WebSocketOptions) throws(CourierError) -> WebSocketUpgrade {
        guard let transport = transport as? any WebSocketTransport else {
            throw CourierError(
                .invalidRequest,
                "\(type(of: transport)) cannot open WebSockets. Use AsyncHTTPClientTransport (the CourierAsyncHTTPClient product). Nothing was sent.")
        }
        guard settings.method == .get, case .none = settings.body.content else {
            throw CourierError(
                .invalidRequest, "A WebSocket handshake is a GET without a body; this request is a \(settings.method) with one. Nothing was sent.")
        }
        // A frame's length field and swift-nio's decoder take at most 4 GiB - 1.
        guard (1...Int(UInt32.max)).contains(options.maximumMessageSize) else {
            throw CourierError(
                .invalidRequest,
                "WebSocketOptions.maximumMessageSize must be between 1 byte and \(UInt32.max) bytes (4 GiB - 1), not \(options.maximumMessageSize). Nothing was sent.")
        }
        if let interval = options.pingInterval, interval <= .zero {
            throw CourierError(.invalidRequest, "WebSocketOptions.pingInterval must be positive or nil, not \(interval). Nothing was sent.")
        }
        for name in options.subprotocols where name.isEmpty || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0)) }) {
            throw CourierError(
                .invalidRequest, "The WebSocket subprotocol \"\(name)\" is not an HTTP token (RFC 6455 section 4.1). Nothing was sent.")
        }
        return WebSocketUpgrade(transport: transport, options: options)
    }
}
