/// Renews credentials when the API answers 401 (beyond the seeds): sign in again with a saved
/// refresh token, call a refresh endpoint, … Set one on ``ClientConfiguration/authenticator``.
///
/// Requests that fail with 401 while they carried the current credentials wait for one refresh
/// (single flight: ten concurrent 401s cause one call), then each is retried once with the new
/// credentials. Requests the authenticator sends itself never trigger a refresh.
public protocol Authenticator: Sendable {
    /// Obtains new credentials, typically by sending a request through `client`: the
    /// authentication headers its response carries are captured as usual. Return `true` to retry
    /// the failed requests, `false` to let them fail with their 401.
    func refreshCredentials(using client: APIClient) async throws -> Bool
}
