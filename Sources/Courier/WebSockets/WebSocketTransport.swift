import Foundation

/// A transport that can open WebSockets (``APIClient/webSocket(_:options:onConnect:)``).
package protocol WebSocketTransport: Sendable {
    /// Sends `request` as a WebSocket handshake. A `101` comes back with the open connection; any
    /// other answer comes back as a response with its body (up to the request's size limit) and
    /// no connection, for the pipeline to judge as it judges any response.
    func openWebSocket(_ request: TransportRequest, options: WebSocketOptions) async throws -> WebSocketHandshake
}

/// The answer to a WebSocket handshake.
package struct WebSocketHandshake: Sendable {
    /// The response: `101` with its headers when the connection opened.
    package var response: TransportResponse
    /// The connection, when the server switched protocols.
    package var connection: (any WebSocketConnection)?

    package init(response: TransportResponse, connection: (any WebSocketConnection)?) {
        self.response = response
        self.connection = connection
    }
}

/// An open WebSocket on a transport.
package protocol WebSocketConnection: Sendable {
    /// The next message, `nil` once the connection has closed cleanly; throws when it ended
    /// otherwise (lost, a protocol fault, a message too large).
    func receive() async throws(CourierError) -> WebSocketMessage?
    /// Sends `message`.
    func send(_ message: WebSocketMessage) async throws(CourierError)
    /// Sends a ping and returns when its pong arrives; throws when none arrives within the ping
    /// interval (30 seconds without one) or the connection ends first.
    func ping() async throws(CourierError)
    /// Starts the closing handshake with `code` and `reason` (at once: messages not yet read are
    /// dropped) and returns when the connection has closed.
    func close(_ code: WebSocketCloseCode, reason: String) async
    /// Starts closing without waiting: for a connection nobody holds any more.
    func abandon()
    /// The close code and reason the peer sent, once it closed.
    var closeFrame: (code: WebSocketCloseCode, reason: String)? { get }
}

/// What the pipeline needs to open a WebSocket through ``APIClient/attempt``: the transport and
/// the options in, the connection out.
final class WebSocketUpgrade: Sendable {
    let transport: any WebSocketTransport
    let options: WebSocketOptions
    private let opened = Locked<(any WebSocketConnection)?>(nil)

    init(transport: any WebSocketTransport, options: WebSocketOptions) {
        self.transport = transport
        self.options = options
    }

    /// Sends the handshake; keeps the connection when it opened.
    func open(_ request: TransportRequest) async throws -> TransportResponse {
        let handshake = try await transport.openWebSocket(request, options: options)
        if let connection = handshake.connection {
            let earlier = opened.withLock { opened in
                defer { opened = connection }
                return opened
            }
            earlier?.abandon()
        }
        return handshake.response
    }

    /// The connection opened, handed over once.
    func take() -> (any WebSocketConnection)? {
        opened.withLock { opened in
            defer { opened = nil }
            return opened
        }
    }
}
