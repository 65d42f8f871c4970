import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on Foundation's `URLSession`.
///
/// One `URLSession` serves every request of a transport; ``shared`` is the process-wide instance
/// that ``APIClient`` uses by default. Foundation's `URLCache` is switched off: Courier keeps its
/// own cache. The session's delegate refuses redirects, so ``APIClient`` follows them with its own
/// header rules, reports upload and download progress, and answers authentication challenges.
public final class URLSessionTransport: HTTPTransport {
    /// The transport ``APIClient`` uses when none is given.
    public static let shared = URLSessionTransport()

    /// Answers an authentication challenge: return the disposition and credential to use, or
    /// `nil` for Courier's default. By default a server-trust challenge (TLS) gets the system's
    /// handling, and an HTTP authentication challenge (a 401 with `WWW-Authenticate`) is refused
    /// and the 401 returned as the response, with its body, as on every transport; Courier's
    /// ``Authenticator`` and credential headers then take over. Answer `.useCredential` to let
    /// URLSession send the request again with that credential. On Linux only Basic and Digest
    /// challenges can be answered that way; an answer swift-corelibs-foundation cannot act on
    /// without crashing (another scheme, or no credential) is ignored and the default applies.
    public typealias ChallengeHandler = @Sendable (URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?)?

    /// The session requests run on. It is invalidated when the transport is freed.
    public let session: URLSession
    let delegate: URLSessionTransportDelegate

    /// Creates a transport with its own session built from `configuration`, whose TLS connections
    /// follow `trust`.
    /// - Parameters:
    ///   - configuration: the session's settings; its `urlCache` is removed, as Courier caches itself,
    ///     and its cookie storage, as each client keeps its cookies in its ``CookieJar``.
    ///   - trust: the roots, pins, client identity and minimum TLS version; the system's by default.
    ///   - challengeHandler: answers authentication challenges; `nil` for the default
    ///     described at ``ChallengeHandler``.
    ///
    /// On Apple platforms the policy answers URLSession's server-trust challenges (its roots, then
    /// its pins, on the verified chain) and client-certificate challenges (a PKCS#12 identity), and
    /// sets the session's minimum TLS version; it answers them before `challengeHandler`, which
    /// cannot weaken it. A PEM client identity cannot be used there (the Security framework takes
    /// identities as PKCS#12): such a policy fails every request.
    ///
    /// On Linux, swift-corelibs-foundation hands TLS to libcurl with the system's roots and raises
    /// no TLS challenge, so only ``TrustPolicy/system`` can be applied: any other policy fails every
    /// request with ``CourierError/Kind/invalidRequest`` before anything is sent (use
    /// `AsyncHTTPClientTransport` there). A policy is never applied in part.
    public init(configuration: URLSessionConfiguration = .default, trust: TrustPolicy = .system, challengeHandler: ChallengeHandler? = nil) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? .default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Cookies are the client's (its CookieJar), as on every transport: never the process's
        // shared HTTPCookieStorage, which every client and every user would share.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        #if canImport(FoundationNetworking)
        configurationProblem = trust.isSystem
            ? nil
            : trust.unsupported(
                "any part", by: "URLSessionTransport on Linux",
                because: "swift-corelibs-foundation hands TLS to libcurl with the system's roots and raises no TLS challenge; use AsyncHTTPClientTransport")
        #else
        if trust.minimumTLSVersion >= .v1_3 { configuration.tlsMinimumSupportedProtocolVersion = .TLSv13 }
        configurationProblem = trust.applicableOnApplePlatforms()
        #endif
        delegate = URLSessionTransportDelegate(challengeHandler: challengeHandler, trust: trust)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: SerialCallbackQueue())
    }

    /// Why no request can be sent: a trust policy this transport cannot apply.
    package let configurationProblem: CourierError?

    /// Requests whose URLSession task has not yet reported its completion.
    package var pendingTasks: Int { delegate.pending }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` on the session; returns 3xx responses without following them.
    ///
    /// Every request runs as a task driven by the session's delegate (not Foundation's `async`
    /// methods, whose cancellation can deadlock against a completing request on Linux), which
    /// reports each piece of the body as it is sent or arrives. On Linux a streamed body
    /// (multipart with files) is never given to URLSession as a file, since swift-corelibs-foundation
    /// can crash when a file-backed upload is cancelled: up to 4 MiB it is sent from memory with its
    /// `Content-Length`; past that it is read a chunk at a time through an `InputStream`, which
    /// libcurl sends with chunked transfer encoding (corelibs cannot pass a stream's length on).
    ///
    /// ``TransportRequest/timeout`` becomes the `URLRequest`'s timeout: an idle timeout, the time
    /// the request may go without sending or receiving anything. swift-corelibs-foundation counts it
    /// in whole seconds, so on Linux a fractional timeout is rounded up to the next second.
    ///
    /// Compressed bodies (`gzip`, `deflate`, and `br` where libcurl has it) are decoded by
    /// URLSession; the response then carries neither `Content-Encoding` nor `Content-Length`. A body
    /// that contradicts its `Content-Length`, or two `Content-Length` headers that disagree, fail
    /// the request.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        try await ExchangeControl.send(request) { start(request, observer: observer, completion: $0) }
    }

    /// The `URLRequest` for `request`.
    static func urlRequest(for request: TransportRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        // Set through the property: swift-corelibs-foundation ignores the initializer's timeout.
        urlRequest.timeoutInterval = effectiveTimeout(request)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        return urlRequest
    }

    /// The timeout URLSession actually applies to `request`: whole seconds on
    /// swift-corelibs-foundation. Never infinite or NaN: Foundation converts it to an integer.
    static func effectiveTimeout(_ request: TransportRequest) -> TimeInterval {
        #if canImport(FoundationNetworking)
        return max(1, request.boundedTimeout.rounded(.up))
        #else
        return request.boundedTimeout
        #endif
    }

    /// The response headers as ``HTTPHeaders``. Names and values are strings under `AnyHashable`
    /// and `Any`: cast back, not described (`"\(name)"` goes through `print`, which cost more
    /// than the rest of a small GET's response handling).
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        let fields = response.allHeaderFields
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            headers.add(name: name.base as? String ?? String(describing: name), value: value as? String ?? String(describing: value))
        }
        return headers
    }
}
