import Foundation

extension URLSessionTransport: WebSocketTransport {
    /// Refuses at once, before anything is sent: on Linux, swift-corelibs-foundation's URLSession
    /// has no WebSocket (its libcurl is built without it), and on Apple platforms Courier does not
    /// open WebSockets on URLSession yet.
    package func openWebSocket(_ request: TransportRequest, options: WebSocketOptions) async throws -> WebSocketHandshake {
        #if canImport(Darwin)
        let why = "Courier does not open WebSockets on URLSessionTransport yet"
        #else
        let why = "URLSession on Linux has no WebSocket support (swift-corelibs-foundation's libcurl is built without it)"
        #endif
        throw CourierError(
            .invalidRequest,
            "\(why). Use AsyncHTTPClientTransport from the CourierAsyncHTTPClient product for WebSockets. Nothing was sent to \(request.url.hostAndPort).",
            url: request.url)
    }
}
