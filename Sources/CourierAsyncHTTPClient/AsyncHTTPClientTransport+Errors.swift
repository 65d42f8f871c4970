import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOPosix

extension AsyncHTTPClientTransport {
    /// Classifies an async-http-client or SwiftNIO error.
    static func courierError(for error: any Error, request: TransportRequest) -> CourierError {
        let url = request.url
        let host = url.hostAndPort
        if let error = error as? CourierError { return error }
        if error is CancellationError {
            return CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: error)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled:
                return CourierError(.cancelled, "The request was cancelled.", url: url, underlyingError: error)
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return CourierError(.timedOut, "\(host) did not respond within \(request.timeout.formattedSeconds) seconds.", url: url, underlyingError: error)
            case .connectTimeout:
                return CourierError(.timedOut, "Connecting to \(host) timed out.", url: url, underlyingError: error)
            case .getConnectionFromPoolTimeout:
                return CourierError(
                    .timedOut,
                    "No connection to \(host) became free within the connect timeout: every pooled connection was busy. "
                        + "Send fewer requests at once, or raise maximumConnectionsPerHost or connectTimeout.",
                    url: url, underlyingError: error)
            case .invalidURL, .emptyHost, .emptyScheme:
                return CourierError(.invalidURL, "The URL \(url.absoluteString) cannot be loaded.", url: url, underlyingError: error)
            case .remoteConnectionClosed:
                return CourierError(.transport, "\(host) closed the connection before answering.", url: url, underlyingError: error)
            default:
                return CourierError(.transport, "The request to \(host) failed: \(error).", url: url, underlyingError: error)
            }
        }
        if let reason = connectionFailure(error) {
            return CourierError(
                .cannotConnect, "Could not connect to \(host): \(reason). Check that the server is running and the address is right.",
                url: url, underlyingError: error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return CourierError(.timedOut, "Connecting to \(host) timed out.", url: url, underlyingError: error)
        }
        return CourierError(.transport, "The request to \(host) failed: \(error).", url: url, underlyingError: error)
    }

    /// The system's words for a failed connection attempt, or `nil` when `error` is not one.
    private static func connectionFailure(_ error: any Error) -> String? {
        if let error = error as? IOError, [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ECONNRESET].contains(error.errnoCode) {
            return String(cString: strerror(error.errnoCode)).lowercased()
        }
        if let error = error as? NIOConnectionError {
            let first = error.connectionErrors.first?.error
            return first.flatMap { connectionFailure($0) } ?? (error.dnsAError ?? error.dnsAAAAError).map { "the host name could not be resolved (\($0))" } ?? "no address accepted the connection"
        }
        return nil
    }
}
