import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of ``URLSessionTransport``: routes each callback to its task's exchange,
/// which stays registered until URLSession says the task has completed.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: URLSessionExchange]>([:])
    private let challengeHandler: URLSessionTransport.ChallengeHandler?
    /// The trust policy server-trust and client-certificate challenges are answered by.
    private let trust: TrustPolicy
    /// Why a task's handshake was refused, until the task completes (with a cancellation).
    private let refusals = Locked<[Int: CourierError]>([:])

    init(challengeHandler: URLSessionTransport.ChallengeHandler?, trust: TrustPolicy = .system) {
        self.challengeHandler = challengeHandler
        self.trust = trust
    }

    func register(_ exchange: URLSessionExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    /// Exchanges whose task has not completed yet.
    var pending: Int { exchanges.withLock { $0.count } }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(for: dataTask), let http = response as? HTTPURLResponse else {
            return completionHandler(.cancel)
        }
        exchange.didReceive(http)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.didReceive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.didSend(bytes: bytesSent, expected: totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)  // APIClient follows redirects itself, with its header rules
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        exchange(for: task)?.refuseResend()
        completionHandler(nil)
    }

    /// A challenge the user's ``URLSessionTransport/ChallengeHandler`` does not answer: server
    /// trust gets the system's default handling; HTTP authentication (a 401 with
    /// `WWW-Authenticate`, which swift-corelibs-foundation raises only once the whole 401 has
    /// arrived) is refused and the 401 handed back as the response, as every other status is.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let exchange = exchange(for: task)
        #if !canImport(FoundationNetworking)
        // The trust policy answers TLS challenges before the user's handler, which cannot weaken it.
        if let (disposition, credential) = answer(challenge, task: task) { return completionHandler(disposition, credential) }
        #endif
        if let (disposition, credential) = challengeHandler?(challenge), Self.isSafe(disposition, credential, for: challenge) {
            if disposition == .useCredential { exchange?.restart() }
            return completionHandler(disposition, credential)
        }
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation raises HTTP authentication challenges only (no server trust).
        exchange?.completeWithReceivedResponse()
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        // On Apple platforms the challenge comes before the 401's body, and default handling
        // without a stored credential delivers the 401; server trust gets the system's checks.
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// Whether URLSession can act on an answer without crashing: swift-corelibs-foundation
    /// force-unwraps the credential of `.useCredential` and stops the process for schemes other than
    /// Basic and Digest. An unsafe answer falls back to the default (the 401 is handed back).
    static func isSafe(
        _ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?, for challenge: URLAuthenticationChallenge
    ) -> Bool {
        guard disposition == .useCredential else { return true }
        guard credential != nil else { return false }
        #if canImport(FoundationNetworking)
        return [NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest].contains(challenge.protectionSpace.authenticationMethod)
        #else
        return true
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        let refusal = refusals.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.taskDidComplete(error: refusal ?? error, taskResponse: task.response)
    }
}

#if !canImport(FoundationNetworking)
extension URLSessionTransportDelegate {
    /// The trust policy's answer to a server-trust or client-certificate challenge; `nil` for
    /// other challenges, and for TLS ones under the system's trust.
    private func answer(
        _ challenge: URLAuthenticationChallenge, task: URLSessionTask
    ) -> (URLSession.AuthChallengeDisposition, URLCredential?)? {
        guard !trust.isSystem else { return nil }
        let space = challenge.protectionSpace
        let url = task.originalRequest?.url
        func refuse(_ error: CourierError) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
            refusals.withLock { $0[task.taskIdentifier] = error }
            return (.cancelAuthenticationChallenge, nil)
        }
        switch space.authenticationMethod {
        case NSURLAuthenticationMethodServerTrust:
            guard let serverTrust = space.serverTrust else { return (.performDefaultHandling, nil) }
            if let reason = trust.refusal(of: serverTrust, host: space.host) {
                return refuse(.untrustedServer(url, reason: reason))
            }
            return (.useCredential, URLCredential(trust: serverTrust))
        case NSURLAuthenticationMethodClientCertificate:
            guard trust.clientIdentity != nil else { return (.performDefaultHandling, nil) }
            do throws(CourierError) {
                return (.useCredential, try trust.clientCredential())
            } catch {
                return refuse(CourierError(error.kind, error.message, url: url, underlyingError: error.underlyingError))
            }
        default:
            return nil
        }
    }
}
#endif
