import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOSSL

/// A new connection whose server is refused by a host's public-key pins: no request was written to
/// it, and it is closed.
struct PinMismatch: Error, CustomStringConvertible {
    /// The reason, in words, naming the pinned host.
    let reason: String
    var description: String { reason }
}

/// The public-key pins of a ``Courier/TrustPolicy`` on async-http-client.
///
/// async-http-client checks a server's chain and host name inside its own TLS handshake and offers
/// no verification callback (swift-server/async-http-client#285). It does hand each new connection
/// to a per-client hook (`http1_1ConnectionDebugInitializer`, `http2ConnectionDebugInitializer`)
/// after the handshake and before the pool uses the connection: a failed future there fails the
/// requests that waited for it, and nothing of them is written. The hook sees the connection, not
/// the host it was made for, so each pin entry gets an `HTTPClient` of its own whose hook checks
/// that entry, and requests to a pinned host go to that client.
///
/// swift-nio-ssl shows the hook the server's own certificate only (the rest of the chain it
/// verified is kept from it), so only pins on the leaf's key (``Courier/TrustPolicy/PublicKeyPins/Scope/leaf``)
/// can be checked here.
struct PinnedConnections: Sendable {
    /// The client for each pin entry, by the entry's host (`api.example.com` or `*.example.com`).
    private let clients: [String: HTTPClient]
    private let policy: TrustPolicy

    /// No pinned hosts.
    init() {
        clients = [:]
        policy = .system
    }

    /// A client per pin entry of `policy`, each with `configuration` and the entry's check.
    init(_ policy: TrustPolicy, configuration: HTTPClient.Configuration) {
        var clients: [String: HTTPClient] = [:]
        for pins in policy.pins {
            var pinned = configuration
            pinned.http1_1ConnectionDebugInitializer = { channel in pins.check(channel) }
            pinned.http2ConnectionDebugInitializer = { channel in pins.check(channel) }
            clients[pins.host] = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pinned)
        }
        self.clients = clients
        self.policy = policy
    }

    /// The client for requests to `url`'s host, when pins apply to it.
    func client(for url: URL) -> HTTPClient? {
        guard !clients.isEmpty, let host = url.host, let pins = policy.pins(for: host) else { return nil }
        return clients[pins.host]
    }

    /// Every pinned client, to shut down.
    /// The pins for `url`'s host, when it has any (a WebSocket checks them on its own connection).
    func pins(for url: URL) -> TrustPolicy.PublicKeyPins? {
        guard !clients.isEmpty, let host = url.host else { return nil }
        return policy.pins(for: host)
    }

    var all: [HTTPClient] { Array(clients.values) }

    /// Why `policy`'s pins cannot be checked on async-http-client, or `nil`.
    static func problem(with policy: TrustPolicy) -> CourierError? {
        guard let wide = policy.pins.first(where: { $0.scope != .leaf }) else { return nil }
        return policy.unsupported(
            "the public-key pins for \(wide.host) (scope .anyCertificate)", by: "AsyncHTTPClientTransport",
            because: "swift-nio-ssl shows async-http-client's connections the server's own certificate, not the rest of the chain it verified; "
                + "pin the server's key with scope .leaf (a backup key too), or use URLSessionTransport on Apple platforms, which checks the whole chain")
    }
}

extension TrustPolicy.PublicKeyPins {
    /// Checks a new connection after async-http-client's TLS handshake (its chain and host-name
    /// checks passed) and before any request is written: the server's certificate must carry one
    /// of these keys. A refused connection is closed once async-http-client has dropped it.
    func check(_ channel: any Channel) -> EventLoopFuture<Void> {
        // async-http-client calls this on the connection's own loop, where the pipeline is read.
        guard channel.eventLoop.inEventLoop else { return channel.eventLoop.flatSubmit { check(channel) } }
        let refusal: String?
        do {
            if let leaf = try channel.pipeline.syncOperations.nioSSL_peerCertificate() {
                let digest = SubjectPublicKeyInfo.digest(certificate: Data(try leaf.toDERBytes()))
                refusal = digest.map { matches(chainDigests: [$0]) } == true
                    ? nil : "its certificate's public key is none of the keys pinned for \(host)"
            } else {
                refusal = "it presented no certificate, and \(host) has pinned keys"
            }
        } catch {
            refusal = "the connection is not TLS, and the keys pinned for \(host) are checked over HTTPS only"
        }
        guard let refusal else { return channel.eventLoop.makeSucceededVoidFuture() }
        // async-http-client drops the connection when this future fails, in this same turn of the
        // loop (the connection was made on it); closing it first would report the close of a
        // connection its pool still counts as starting.
        channel.eventLoop.execute { channel.close(promise: nil) }
        return channel.eventLoop.makeFailedFuture(PinMismatch(reason: refusal))
    }
}
