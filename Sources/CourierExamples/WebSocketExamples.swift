import Courier
import Foundation

/// A chat-style session on a WebSocket: join a room on every connection (the first one and each
/// reconnect), send lines, read what the room says until `count` lines have arrived.
func chat(in room: String, saying lines: [String], until count: Int, client: APIClient) async throws -> [String] {
    var options = WebSocketOptions()
    options.reconnection = .reconnecting               // open it again when the connection drops
    let socket = try await client.webSocket(Request(.get, "ws/echo"), options: options) { socket in
        try await socket.send(.text("join \(room)"))  // on every connection, before reading
    }
    for line in lines {
        try await socket.send(.text(line))
    }
    var heard: [String] = []
    for try await event in socket.events {
        if let reconnect = event.reconnect {
            print("back after reconnect \(reconnect)")  // show the user the session resumed
        }
        if case .text(let text) = event.message {
            heard.append(text)
            if heard.count == count { break }
        }
    }
    try await socket.close(.normalClosure, reason: "bye")
    return heard
}
