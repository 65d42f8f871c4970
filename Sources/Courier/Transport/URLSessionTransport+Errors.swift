import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Classifies a Foundation URL-loading error, knowing whether the response head had arrived
    /// and how much of the body: a failure after the head is a lost connection or a malformed
    /// answer, never "could not connect".
    static func courierError(
        for error: any Error, request: TransportRequest, headReceived: Bool = false, received: Int64 = 0, expected: Int64? = nil
    ) -> CourierError {
        if let error = error as? CourierError { return error }
        let nsError = error as NSError
        let url = request.url
        let host = url.hostAndPort
        guard nsError.domain == NSURLErrorDomain else { return .wrap(error, url: url) }
        let detail = nsError.localizedDescription
        switch nsError.code {
        case NSURLErrorCancelled:
            return .cancelled(url)
        case NSURLErrorTimedOut:
            return CourierError(
                .timedOut, "\(host) did not respond: nothing arrived for \(effectiveTimeout(request).secondsPhrase).",
                url: url, underlyingError: error)
        case NSURLErrorNotConnectedToInternet, NSURLErrorDataNotAllowed, NSURLErrorInternationalRoamingOff:
            return CourierError(.notConnectedToInternet, "The device is offline: check the network connection.", url: url, underlyingError: error)
        case _ where detail.lowercased().contains("out of memory"):
            // libcurl's words for a response header over its 100 KB limit.
            return CourierError(
                .invalidResponse, "\(host) sent an answer too large to read (a response header over libcurl's 100 KB limit); nothing of it was used.",
                url: url, underlyingError: error)
        case _ where isMalformedAnswer(detail):
            // Before the URL errors: libcurl reports a reply it cannot read as HTTP ("Received
            // HTTP/0.9 when not allowed") under NSURLErrorUnsupportedURL.
            return CourierError(.invalidResponse, "\(host) sent an answer that breaks HTTP's rules (\(detail)); nothing of it was used.", url: url, underlyingError: error)
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
            return CourierError(.invalidURL, "The URL \(url.absoluteString) cannot be loaded.", url: url, underlyingError: error)
        case NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateHasUnknownRoot,
            NSURLErrorServerCertificateNotYetValid:
            return .untrustedServer(url, reason: "its certificate is not trusted (\(detail))", underlyingError: error)
        case NSURLErrorClientCertificateRejected, NSURLErrorClientCertificateRequired:
            return CourierError(
                .clientCertificateRefused, "\(host) refused the TLS handshake over the client certificate (\(detail)). Nothing of the request was sent.",
                url: url, underlyingError: error)
        case _ where !headReceived && isCertificateProblem(detail):
            // libcurl's words, under NSURLErrorUnknown on Linux.
            return .untrustedServer(url, reason: detail, underlyingError: error)
        case _ where headReceived:
            return ResponseFraming.truncated(url: url, received: received, declared: expected, underlyingError: error)
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed, NSURLErrorSecureConnectionFailed:
            return CourierError(.cannotConnect, "Could not connect to \(host): \(detail). Check that the server is running and the address is right.", url: url, underlyingError: error)
        case NSURLErrorNetworkConnectionLost, NSURLErrorBadServerResponse:
            return CourierError(.connectionLost, "\(host) closed the connection without answering.", url: url, underlyingError: error)
        case _ where isBrokenConnection(detail):
            // libcurl's words, under NSURLErrorUnknown on Linux, for a connection the server closed
            // or reset while the request went out: lost, as async-http-client reports it.
            return CourierError(
                .connectionLost, "\(host) closed the connection while the request was being sent (\(detail)).", url: url, underlyingError: error)
        default:
            return CourierError(.transport, "The request to \(host) failed: \(detail)", url: url, underlyingError: error)
        }
    }

    /// Whether libcurl's words describe a server certificate it refused (an unknown root, another
    /// host name, an expired or not yet valid certificate).
    private static func isCertificateProblem(_ detail: String) -> Bool {
        let text = detail.lowercased()
        return ["ssl certificate problem", "certificate subject name", "ssl peer certificate", "no alternative certificate"].contains { text.contains($0) }
    }

    /// Whether libcurl's words describe a connection broken under it (`Send failure: Broken pipe`,
    /// `Recv failure: Connection reset by peer`).
    private static func isBrokenConnection(_ detail: String) -> Bool {
        let text = detail.lowercased()
        return ["broken pipe", "connection reset", "send failure", "recv failure"].contains { text.contains($0) }
    }

    /// Whether libcurl's words describe a malformed answer rather than a broken connection.
    static func isMalformedAnswer(_ detail: String) -> Bool {
        let text = detail.lowercased()
        return ["chunk", "header", "weird server reply", "unsupported http version", "http/0.9", "encoding", "content-length", "invalid status line"]
            .contains { text.contains($0) }
    }
}
