import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Classifies a Foundation URL-loading error.
    static func courierError(for error: any Error, request: TransportRequest) -> CourierError {
        if let error = error as? CourierError { return error }
        let nsError = error as NSError
        let url = request.url
        let host = url.hostAndPort
        guard nsError.domain == NSURLErrorDomain else { return .wrap(error, url: url) }
        switch nsError.code {
        case NSURLErrorCancelled:
            return .cancelled(url)
        case NSURLErrorTimedOut:
            return CourierError(.timedOut, "\(host) did not respond within \(effectiveTimeout(request.timeout).formattedSeconds) seconds without a byte.", url: url, underlyingError: error)
        case NSURLErrorCannotConnectToHost, NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed,
             NSURLErrorNetworkConnectionLost, NSURLErrorSecureConnectionFailed:
            return CourierError(.cannotConnect, "Could not connect to \(host): \(nsError.localizedDescription). Check that the server is running and the address is right.", url: url, underlyingError: error)
        case NSURLErrorNotConnectedToInternet, NSURLErrorDataNotAllowed, NSURLErrorInternationalRoamingOff:
            return CourierError(.notConnectedToInternet, "The device is offline: check the network connection.", url: url, underlyingError: error)
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
            return CourierError(.invalidURL, "The URL \(url.absoluteString) cannot be loaded.", url: url, underlyingError: error)
        default:
            return CourierError(.transport, "The request to \(host) failed: \(nsError.localizedDescription)", url: url, underlyingError: error)
        }
    }
}
