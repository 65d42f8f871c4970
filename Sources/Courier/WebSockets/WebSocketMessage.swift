import Foundation

/// One message of a WebSocket: text or binary (RFC 6455's two data frame types). A message sent
/// in fragments arrives here whole.
public enum WebSocketMessage: Sendable, Hashable, CustomStringConvertible {
    /// A text message (UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// `text(5 characters)` or `binary(1024 bytes)`: never the content, which may be private.
    public var description: String {
        switch self {
        case .text(let text): "text(\(text.count) characters)"
        case .binary(let data): "binary(\(data.count) bytes)"
        }
    }

    /// The size on the wire before compression, in bytes.
    var size: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}

/// A WebSocket close code (RFC 6455 section 7.4): the standard ones as static members, and any
/// application code (4000-4999) through ``init(rawValue:)``.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code on the wire.
    public let rawValue: UInt16

    /// The code `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (an app leaving the screen, a server shutting down), or
    /// the peer stopped answering pings.
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a message of a type the endpoint cannot take (binary where only text is understood).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1007: a message whose content does not match its type (text that is not UTF-8).
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message that breaks the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too large to take.
    public static let messageTooLarge = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met a condition that kept it from fulfilling the request.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// `1000` and, for a standard code, its name: `1000 (normal closure)`.
    public var description: String {
        let names: [UInt16: String] = [
            1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data", 1005: "no code",
            1006: "abnormal closure", 1007: "invalid payload", 1008: "policy violation", 1009: "message too large",
            1010: "missing extension", 1011: "internal error",
        ]
        return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }

    /// Whether an endpoint may send the code in a close frame (RFC 6455 section 7.4: 1000-1003,
    /// 1007-1011 and 3000-4999).
    var isSendable: Bool {
        (1000...1003).contains(rawValue) || (1007...1011).contains(rawValue) || (3000...4999).contains(rawValue)
    }
}

/// How ``APIClient/webSocket(_:options:onConnect:)`` opens and keeps a connection.
public struct WebSocketOptions: Sendable {
    /// The subprotocols offered in `Sec-WebSocket-Protocol`, most wanted first; the server's choice
    /// is ``WebSocket/subprotocol``. A server that picks one not offered fails the handshake.
    public var subprotocols: [String] = []
    /// Whether permessage-deflate (RFC 7692) is offered; the server decides whether it is used.
    /// On by default.
    public var compression = true
    /// The largest message taken, whole or in fragments, after decompression. A larger one closes
    /// the connection with ``WebSocketCloseCode/messageTooLarge`` and fails the reader with
    /// ``CourierError/Kind/responseTooLarge``. 16 MiB by default; at most 4 GiB - 1.
    public var maximumMessageSize = 16 << 20
    /// How often a ping is sent; a connection whose peer has not answered the last ping by the
    /// next one is lost (the reader fails with ``CourierError/Kind/connectionLost``). Pongs are
    /// read with the messages, so a reader that stops reading for longer than this also loses the
    /// connection. 30 seconds by default; `nil` sends no pings.
    public var pingInterval: Duration? = .seconds(30)
    /// Whether, and how, a connection that ends is opened again: `nil` (the default) for never.
    /// The attempts and waits count from the last message received; a reconnect follows a
    /// failure in the policy's ``RetryPolicy/retryableFailures`` (a dropped connection, a lost
    /// peer) or a close by the server with a code not in ``finalCloseCodes``, never a close by
    /// the app. ``RetryPolicy/reconnecting`` suits most sessions.
    public var reconnection: RetryPolicy?
    /// The close codes from the server after which a reconnecting socket stays closed: by default
    /// ``WebSocketCloseCode/normalClosure`` and ``WebSocketCloseCode/policyViolation``.
    public var finalCloseCodes: Set<WebSocketCloseCode> = [.normalClosure, .policyViolation]

    /// The default options.
    public init() {}
}
