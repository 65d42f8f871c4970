import Courier
import Foundation
import Logging
import NIOCore
import NIOWebSocket
@_spi(WSInternal) import WSCore

/// An open WebSocket on a NIO channel. swift-websocket's `WebSocketHandler` runs the protocol
/// (control frames, pings and their timeout, the closing handshake, extensions) in a task of the
/// connection's own; this class reassembles messages (checking size and UTF-8), queues them in a
/// ``WebSocketInbox`` with backpressure, and sends and closes on the app's behalf.
final class NIOWebSocketConnection: WebSocketConnection {
    private struct State {
        var outbound: WebSocketOutboundWriter?
        /// Resumed once the handler runs (or ended before it could).
        var attached: CheckedContinuation<Void, Never>?
        var closeFrame: (code: WebSocketCloseCode, reason: String)?
        /// A fault this side found in what the server sent, and closed the connection for.
        var fault: CourierError?
        /// Whether the app started the closing handshake.
        var closing = false
        var ended = false
        var run: Task<Void, Never>?
    }

    private struct Context: WebSocketContext {
        let logger: Logger
    }

    private let state = Locked(State())
    private let inbox = WebSocketInbox()
    private let url: URL
    private let maximumMessageSize: Int
    private let pongs: PongWaiters
    /// How long an app's ping waits for its pong.
    private let pingTimeout: Duration
    private let eventLoop: any EventLoop

    private init(url: URL, options: WebSocketOptions, pongs: PongWaiters, eventLoop: any EventLoop) {
        self.url = url
        maximumMessageSize = options.maximumMessageSize
        pingTimeout = options.pingInterval ?? .seconds(30)
        self.pongs = pongs
        self.eventLoop = eventLoop
    }

    /// Starts the protocol on `channel` and returns once it can send.
    static func start(
        _ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, extensions: [any WebSocketExtension], pongs: PongWaiters,
        options: WebSocketOptions, url: URL
    ) async -> NIOWebSocketConnection {
        let connection = NIOWebSocketConnection(url: url, options: options, pongs: pongs, eventLoop: channel.channel.eventLoop)
        let configuration = WebSocketHandler.Configuration(
            extensions: extensions, autoPing: options.pingInterval.map { .enabled(timePeriod: $0) } ?? .disabled, closeTimeout: .seconds(10),
            validateUTF8: false, maxFrameSize: options.maximumMessageSize)
        await withCheckedContinuation { attached in
            connection.state.withLock { $0.attached = attached }
            let run = Task {
                do {
                    let frame = try await WebSocketHandler.handle(
                        type: .client, configuration: configuration, asyncChannel: channel, context: Context(logger: Logger(label: "Courier.WebSocket")),
                        handler: { inbound, outbound, _ in
                            connection.attach(outbound)
                            try await connection.pump(inbound)
                        })
                    connection.ended(closeFrame: frame, error: nil)
                } catch {
                    connection.ended(closeFrame: nil, error: error)
                }
            }
            connection.state.withLock { $0.run = run }
        }
        return connection
    }

    var closeFrame: (code: WebSocketCloseCode, reason: String)? { state.withLock { $0.closeFrame } }

    func receive() async throws(CourierError) -> Courier.WebSocketMessage? {
        try await inbox.next()
    }

    func send(_ message: Courier.WebSocketMessage) async throws(CourierError) {
        let (outbound, closed) = state.withLock { ($0.outbound, $0.closing || $0.ended) }
        guard let outbound, !closed else {
            throw CourierError(.invalidRequest, "The WebSocket to \(url.hostAndPort) is closed\(closedWith); the \(message) was not sent.", url: url)
        }
        do {
            switch message {
            case .text(let text): try await outbound.writeTextMessage(text)
            case .binary(let data): try await outbound.writeBinaryMessage(ByteBuffer(data: data))
            }
        } catch {
            throw CourierError(
                .connectionLost, "The WebSocket to \(url.hostAndPort) failed while sending a \(message)\(closedWith): \(error).", url: url,
                underlyingError: error)
        }
    }

    func ping() async throws(CourierError) {
        let (outbound, closed) = state.withLock { ($0.outbound, $0.closing || $0.ended) }
        guard let outbound, !closed else {
            throw CourierError(.invalidRequest, "The WebSocket to \(url.hostAndPort) is closed\(closedWith); no ping was sent.", url: url)
        }
        let (number, payload) = pongs.expect()
        let deadline = eventLoop.scheduleTask(in: TimeAmount(pingTimeout)) { [pongs] in pongs.settle(number, .timedOut) }
        defer { deadline.cancel() }
        do {
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: payload)))
        } catch {
            pongs.forget(number)
            throw CourierError(
                .connectionLost, "The WebSocket to \(url.hostAndPort) failed while sending a ping\(closedWith): \(error).", url: url, underlyingError: error)
        }
        let outcome = await withTaskCancellationHandler {
            await pongs.wait(number)
        } onCancel: {
            pongs.settle(number, .cancelled)
        }
        switch outcome {
        case .answered: return
        case .timedOut:
            throw CourierError(.timedOut, "The WebSocket server at \(url.hostAndPort) did not answer a ping within \(pingTimeout).", url: url)
        case .cancelled: throw CourierError.cancelled(url)
        case .ended:
            throw state.withLock { $0.fault } ?? CourierError(
                .connectionLost, "The WebSocket connection to \(url.hostAndPort) ended\(closedWith) before the server answered a ping.", url: url)
        }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async {
        let (outbound, first, run) = state.withLock { state in
            defer { state.closing = true }
            return (state.outbound, !state.closing && !state.ended, state.run)
        }
        if first, let outbound {
            try? await outbound.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: reason.isEmpty ? nil : reason)
        }
        inbox.finish(nil, dropping: true)
        await run?.value
    }

    func abandon() {
        let open = state.withLock { !$0.closing && !$0.ended }
        guard open else { return }
        Task { await close(.goingAway, reason: "") }
    }

    // MARK: - The connection's task

    private func attach(_ outbound: WebSocketOutboundWriter) {
        let attached = state.withLock { state in
            state.outbound = outbound
            defer { state.attached = nil }
            return state.attached
        }
        attached?.resume()
    }

    /// Reads frames, reassembles messages and queues them, until the connection closes, the app
    /// closes it, or the server breaks the protocol (then closed here with the code that says how).
    private func pump(_ inbound: WebSocketInboundStream) async throws {
        var frames = inbound.makeAsyncIterator()
        var partial: (opcode: WebSocketDataFrame.Opcode, data: ByteBuffer)?
        while true {
            let next: WebSocketDataFrame?
            do {
                next = try await frames.next()
            } catch NIOWebSocketError.invalidFrameLength {
                return await fault(
                    .messageTooLarge, .responseTooLarge, "sent a frame larger than WebSocketOptions.maximumMessageSize (\(maximumMessageSize) bytes)")
            } catch NIOWebSocketError.fragmentedControlFrame {
                return await fault(.protocolError, .invalidResponse, "sent a fragmented control frame")
            } catch NIOWebSocketError.multiByteControlFrameLength {
                return await fault(.protocolError, .invalidResponse, "sent a control frame longer than 125 bytes")
            } catch let violation as ServerFrameViolation {
                return await fault(.protocolError, .invalidResponse, violation.reason)
            }
            guard let frame = next else { return }
            switch frame.opcode {
            case .text, .binary:
                guard partial == nil else {
                    return await fault(.protocolError, .invalidResponse, "started a new message before finishing the fragmented one it had begun")
                }
                partial = (frame.opcode, frame.data)
            case .continuation:
                guard var current = partial else {
                    return await fault(.protocolError, .invalidResponse, "sent a continuation frame with no fragmented message to continue")
                }
                partial = nil
                var data = frame.data
                current.data.writeBuffer(&data)
                partial = current
            }
            guard let current = partial, current.data.readableBytes <= maximumMessageSize else {
                return await fault(
                    .messageTooLarge, .responseTooLarge,
                    "sent a message larger than WebSocketOptions.maximumMessageSize (\(maximumMessageSize) bytes)")
            }
            guard frame.fin else { continue }
            partial = nil
            let message: Courier.WebSocketMessage
            if current.opcode == .text {
                guard let text = String(validating: current.data.readableBytesView, as: UTF8.self) else {
                    return await fault(.invalidPayload, .invalidResponse, "sent a text message that is not UTF-8")
                }
                message = .text(text)
            } else {
                message = .binary(Data(current.data.readableBytesView))
            }
            guard await inbox.push(message) else { return }
        }
    }

    /// Closes the connection for a fault of the server's, kept for the reader.
    private func fault(_ code: WebSocketCloseCode, _ kind: CourierError.Kind, _ what: String) async {
        let failure = CourierError(kind, "The WebSocket server at \(url.hostAndPort) \(what); the connection was closed with \(code).", url: url)
        let outbound = state.withLock { state in
            if state.fault == nil { state.fault = failure }
            return state.outbound
        }
        try? await outbound?.close(WebSocketErrorCode(codeNumber: Int(code.rawValue)), reason: nil)
    }

    /// The protocol ended: with the server's close frame, or with an error.
    private func ended(closeFrame frame: WebSocketCloseFrame?, error: (any Error)?) {
        let (attached, failure) = state.withLock { state -> (CheckedContinuation<Void, Never>?, CourierError?) in
            state.ended = true
            if let frame {
                state.closeFrame = (WebSocketCloseCode(rawValue: UInt16(webSocketErrorCode: frame.closeCode)), frame.reason ?? "")
            }
            let attached = state.attached
            state.attached = nil
            if let fault = state.fault { return (attached, fault) }
            if let error {
                if state.closing { return (attached, nil) }
                return (attached, CourierError(
                    .connectionLost, "The WebSocket connection to \(url.hostAndPort) failed: \(error).", url: url, underlyingError: error))
            }
            if frame == nil, !state.closing {
                return (attached, CourierError(
                    .connectionLost,
                    "The WebSocket connection to \(url.hostAndPort) ended without a closing handshake: the connection dropped, or the server stopped answering pings.",
                    url: url))
            }
            return (attached, nil)
        }
        attached?.resume()
        pongs.end()
        inbox.finish(failure, dropping: false)
    }

    /// ` (code 1000 (normal closure))` once the server closed, else nothing.
    private var closedWith: String {
        closeFrame.map { " (code \($0.code))" } ?? ""
    }
}
