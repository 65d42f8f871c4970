import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Classifies an async-http-client or SwiftNIO error. With a `proxy`, a connection that could
    /// not be opened is the proxy's, and the error names it.
    static func courierError(for error: any Error, request: TransportRequest, proxy: Proxy?) -> CourierError {
        let url = request.url
        let host = url.hostAndPort
        // What a failed connection was to: the proxy when there is one (the server was never tried).
        // Computed, so that only the errors that name it write it.
        var connected: String { proxy.map { "the proxy \($0.host):\($0.port) (on the way to \(host))" } ?? host }
        if let error = error as? CourierError { return error }
        if let mismatch = error as? PinMismatch { return .untrustedServer(url, reason: mismatch.reason, underlyingError: error) }
        if error is IdleTimeout {
            return CourierError(
                .timedOut, "\(host) did not respond: nothing arrived for \(request.boundedTimeout.secondsPhrase).",
                url: url, underlyingError: error)
        }
        if let malformed = malformedAnswer(error, request: request) { return malformed }
        if let interrupted = error as? BodyInterrupted {
            let cause = interrupted.underlying
            if let error = cause as? CourierError { return error }
            if cause is CancellationError || (cause as? HTTPClientError) == .cancelled || cause is IdleTimeout
                || (cause as? HTTPClientError) == .deadlineExceeded || (cause as? HTTPClientError) == .readTimeout {
                return courierError(for: cause, request: request, proxy: proxy)
            }
            return ResponseFraming.truncated(url: url, received: interrupted.received, declared: interrupted.expected, underlyingError: cause)
        }
        if error is CancellationError {
            return CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: error)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled:
                return CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: error)
            case .readTimeout:
                // The client's limit between two reads, not the request's timeout.
                return CourierError(
                    .timedOut, "\(host) sent nothing for longer than the client's read timeout (readTimeout).", url: url, underlyingError: error)
            case .writeTimeout:
                return CourierError(
                    .timedOut, "\(host) took nothing of the request for longer than the client's write timeout.", url: url, underlyingError: error)
            case .deadlineExceeded:
                return CourierError(.timedOut, "\(host) did not answer before the request's deadline.", url: url, underlyingError: error)
            case .connectTimeout:
                return CourierError(.timedOut, "Connecting to \(connected) timed out.", url: url, underlyingError: error)
            case .getConnectionFromPoolTimeout:
                return CourierError(
                    .timedOut,
                    "No connection to \(host) became free within the connect timeout: every pooled connection was busy. "
                        + "Send fewer requests at once, or raise maximumConnectionsPerHost or connectTimeout.",
                    url: url, underlyingError: error)
            case .invalidURL, .emptyHost, .emptyScheme:
                return CourierError(.invalidURL, "The URL \(url.absoluteString) cannot be loaded.", url: url, underlyingError: error)
            case .proxyAuthenticationRequired:
                return CourierError(
                    .cannotConnect, "The proxy refused the credentials given for it (407 Proxy Authentication Required), so \(host) was not reached.",
                    url: url, underlyingError: error)
            case .invalidProxyResponse, .httpProxyHandshakeTimeout:
                return CourierError(.cannotConnect, "The proxy did not open a tunnel to \(host) (\(error)).", url: url, underlyingError: error)
            case .remoteConnectionClosed:
                return CourierError(.connectionLost, "\(host) closed the connection without answering.", url: url, underlyingError: error)
            default:
                return CourierError(.transport, "The request to \(host) failed: \(error).", url: url, underlyingError: error)
            }
        }
        if let refusal = handshakeRefusal(error, request: request) { return refusal }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) {
            return CourierError(.connectionLost, "\(host) reset the connection without answering.", url: url, underlyingError: error)
        }
        if let error = error as? ChannelError, case .ioOnClosedChannel = error {
            return CourierError(.connectionLost, "\(host) closed the connection before the request could be sent.", url: url, underlyingError: error)
        }
        if let reason = connectionFailure(error) {
            return CourierError(
                .cannotConnect,
                "Could not connect to \(connected): \(reason). Check that the \(proxy == nil ? "server" : "proxy") is running and the address is right.",
                url: url, underlyingError: error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return CourierError(.timedOut, "Connecting to \(connected) timed out.", url: url, underlyingError: error)
        }
        return CourierError(.transport, "The request to \(host) failed: \(error).", url: url, underlyingError: error)
    }

    /// Whether `error` is a connection that closed or was reset under a request (before any of
    /// its answer, when the caller checks that): what a kept-alive connection the server dropped
    /// does to the request that reuses it.
    static func closedBeforeAnswering(_ error: any Error) -> Bool {
        if let error = error as? ChannelError, case .ioOnClosedChannel = error { return true }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) { return true }
        return false
    }

    /// A malformed answer (broken framing, a header too large, a body that does not decompress or
    /// decompresses past the limit), wherever it was found; `nil` for other errors.
    private static func malformedAnswer(_ error: any Error, request: TransportRequest) -> CourierError? {
        let cause = (error as? BodyInterrupted)?.underlying ?? error
        let url = request.url
        let host = url.hostAndPort
        if let parserError = cause as? HTTPParserError {
            if case .invalidEOFState = parserError, let interrupted = error as? BodyInterrupted {
                return ResponseFraming.truncated(url: url, received: interrupted.received, declared: interrupted.expected, underlyingError: cause)
            }
            return CourierError(.invalidResponse, "\(host) sent an answer that breaks HTTP's rules (\(parserError)); nothing of it was used.", url: url, underlyingError: cause)
        }
        if let decompression = cause as? NIOHTTPDecompression.DecompressionError {
            if decompression == .limit {
                return CourierError(
                    .responseTooLarge,
                    "The compressed body from \(host) inflates past the decompression limit (maximumDecompressedSize); it was not read further.",
                    url: url, underlyingError: cause)
            }
            return CourierError(.invalidResponse, "The compressed body from \(host) could not be decoded (\(decompression)).", url: url, underlyingError: cause)
        }
        if cause is NIOHTTPDecompression.ExtraDecompressionError {
            return CourierError(.invalidResponse, "The compressed body from \(host) could not be decoded (\(cause)).", url: url, underlyingError: cause)
        }
        return nil
    }

    /// The system's words for a failed connection attempt, or `nil` when `error` is not one.
    private static func connectionFailure(_ error: any Error) -> String? {
        if let error = error as? IOError, [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode) {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? NIOConnectionError {
            let first = error.connectionErrors.first?.error
            return first.flatMap { connectionFailure($0) } ?? (error.dnsAError ?? error.dnsAAAAError).map { "the host name could not be resolved (\($0))" } ?? "no address accepted the connection"
        }
        return nil
    }

    /// A TLS handshake refused over trust, with the host and the reason; `nil` for other errors.
    static func handshakeRefusal(_ error: any Error, request: TransportRequest) -> CourierError? {
        let url = request.url
        let host = url.hostAndPort
        func untrusted(_ reason: String) -> CourierError { .untrustedServer(url, reason: reason, underlyingError: error) }
        func refused(_ reason: String) -> CourierError {
            CourierError(
                .clientCertificateRefused, "\(host) refused the TLS connection: \(reason). The server did not take the request.", url: url,
                underlyingError: error)
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return untrusted("its certificate is for another host name")
        }
        if let error = error as? HTTPClientError, error == .tlsHandshakeTimeout {
            return CourierError(.timedOut, "The TLS handshake with \(host) timed out.", url: url, underlyingError: error)
        }
        // A refusal during the handshake, or an alert after it: TLS 1.3 servers check the client's
        // certificate once the client has finished its part, and their alert ends the first read.
        let cause: BoringSSLError
        if let error = error as? NIOSSLError, case .handshakeFailed(let inner) = error {
            cause = inner
        } else if let error = error as? BoringSSLError {
            cause = error
        } else {
            return nil
        }
        let text = "\(cause)".uppercased()
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return untrusted("its certificate chain is not trusted: it is not signed by a root the trust policy accepts, or it has expired or is not yet valid")
        }
        if text.contains("CERTIFICATE_REQUIRED") || text.contains("HANDSHAKE_FAILURE_ON_CLIENT_HELLO") {
            return refused("it requires a client certificate; give the trust policy a clientIdentity")
        }
        if text.contains("BAD_CERTIFICATE") || text.contains("UNKNOWN_CA") || text.contains("CERTIFICATE_UNKNOWN")
            || text.contains("UNSUPPORTED_CERTIFICATE") || text.contains("CERTIFICATE_EXPIRED") || text.contains("ACCESS_DENIED") {
            return refused("it did not accept the client certificate presented")
        }
        if text.contains("PROTOCOL_VERSION") || text.contains("UNSUPPORTED_PROTOCOL") {
            return untrusted("the server offers no TLS version the trust policy accepts")
        }
        guard case .handshakeFailed = error as? NIOSSLError else { return nil }
        return untrusted("\(cause)")
    }
}
