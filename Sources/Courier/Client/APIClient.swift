import Foundation
import Logging

/// Sends ``Request`` values to an API and returns typed ``Response`` values.
///
/// ```swift
/// let client = APIClient(baseURL: URL(string: "https://api.example.com")!, apiPath: "v1")
/// let user = try await client.send(Request<User>(.get, "me")).value
/// ```
///
/// A client is immutable and `Sendable`: share one across your app.
public final class APIClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: ClientConfiguration
    /// The transport requests go through.
    public let transport: any HTTPTransport
    /// Captured credentials, when ``ClientConfiguration/authenticationHeaders`` names any.
    let authentication: AuthenticationState?
    let refresher = RefreshCoordinator()
    /// Whether the logger writes debug lines (decided once: a `Logger`'s level is part of its value).
    let logsRequests: Bool
    /// The configured base URL and API path, joined once for every request's URL and cache key.
    let urlPrefix: URLBuilder.Prefix
    /// Where metrics and spans go.
    let observability: Observability
    /// What is wrong with the configuration, checked once here: every request fails with it.
    let configurationProblem: CourierError?
    /// Identical requests in flight, sharing one exchange.
    package let inFlight = InFlightExchanges()
    /// The transport in the start-and-call-back shape every exchange runs in: the transport
    /// itself when it has that shape, else an adapter that runs its `send` in a task.
    let callbackTransport: any CallbackTransport
    /// What a redirect leads to, from the configuration: what each exchange asks.
    let redirectRules: RedirectRules
    /// Who hears that the network answered a request (the outbox's trigger).
    package let answerObservers = Registrations<AnswerObserver>()
    /// What ``logout()`` runs besides forgetting credentials, by registration number.
    let logoutHandlers = Registrations<LogoutHandler>()
    /// The fields never logged, and of which a stored `Vary` selection keeps only a digest: the
    /// credential fields, the redirect policy's sensitive headers and the authentication headers.
    let secretHeaders: [String]
    /// The cookies the client keeps and sends (``ClientConfiguration/cookies``); `nil` with
    /// ``CookiePolicy/none``.
    public let cookieJar: CookieJar?
    /// The resumable downloads running now, by user scope and identifier.
    let activeDownloads = Locked<Set<String>>([])
    /// The background revalidations of stale cached responses running now, by cache key.
    let backgroundRevalidations = Locked<[String: Task<Void, Never>]>([:])

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: the base URL, API path and every client-wide setting.
    ///   - transport: defaults to ``URLSessionTransport/shared``.
    public init(configuration: ClientConfiguration, transport: any HTTPTransport = URLSessionTransport.shared) {
        self.configuration = configuration
        self.transport = transport
        callbackTransport = transport as? any CallbackTransport ?? SendingTransportAdapter(base: transport)
        redirectRules = RedirectRules(configuration)
        cookieJar = configuration.cookies.makeJar()
        logsRequests = configuration.logger.logLevel <= .debug
        urlPrefix = URLBuilder.Prefix(baseURL: configuration.baseURL, apiPath: configuration.apiPath)
        observability = Observability(configuration: configuration)
        secretHeaders = HTTPHeaders.credentialFields + configuration.redirects.sensitiveHeaders + configuration.authenticationHeaders
        configurationProblem = RequestValidation.problem(in: configuration)
        if let configurationProblem {
            configuration.logger.error("Courier: every request of this client will fail: \(configurationProblem.message)")
        }
        if configuration.authenticationHeaders.isEmpty {
            authentication = nil
        } else {
            let origin = configuration.baseURL.origin
            authentication = AuthenticationState(
                origin: origin, names: configuration.authenticationHeaders, expiryName: configuration.expiryHeader,
                scopeNames: configuration.cacheScopeHeaders,
                store: configuration.credentialStore ?? CredentialStore.standard(for: origin), logger: configuration.logger)
        }
    }

    /// Creates a client with a default configuration for `baseURL` and `apiPath`.
    public convenience init(baseURL: URL, apiPath: String = "", transport: any HTTPTransport = URLSessionTransport.shared) {
        self.init(configuration: ClientConfiguration(baseURL: baseURL, apiPath: apiPath), transport: transport)
    }
}
