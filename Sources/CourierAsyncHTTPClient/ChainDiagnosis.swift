import Courier
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Why a server's certificate chain failed async-http-client's verification, in words: a second
/// handshake with the same TLS settings that only reads the chain the server presents. The
/// refusal itself is async-http-client's; this only names its reason (BoringSSL reports every
/// verification failure as `CERTIFICATE_VERIFY_FAILED`).
enum ChainDiagnosis {
    /// Whether `error` is a chain verification failure.
    static func applies(to error: any Error) -> Bool {
        guard let error = error as? NIOSSLError, case .handshakeFailed(let cause) = error else { return false }
        return "\(cause)".contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// The reason `host`:`port`'s chain is refused: expired, not yet valid, or not signed by a
    /// trusted root; `nil` when the server cannot be reached again within a few seconds.
    static func reason(host: String, port: Int, configuration: TLSConfiguration) async -> String? {
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let chain = Locked<[NIOSSLCertificate]>([])
        let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName) { certificates, promise in
                        chain.withLock { $0 = certificates }
                        promise.succeed(NIOSSLVerificationResult.failed)
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else { return nil }
        // The refused handshake closes the channel; a server that says nothing is left after 5 s.
        let limit = channel.eventLoop.scheduleTask(in: TimeAmount.seconds(5)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        limit.cancel()
        guard let leaf = chain.withLock({ $0.first }) else { return nil }
        let now = time(nil)
        let formatter = ISO8601DateFormatter()
        if leaf.notValidAfter < now {
            return "its certificate expired on \(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))))"
        }
        if leaf.notValidBefore > now {
            return "its certificate is not valid before \(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore))))"
        }
        return "its certificate chain is not signed by a root the trust policy accepts (an unknown certificate authority)"
    }
}
