import Foundation

extension APIClient {
    /// The request a redirect leads to, or `nil` when `response` is the answer (not a redirect,
    /// or redirects are not followed). `current` is the request `response` answers, `original`
    /// the first of the chain, `hops` the redirects followed so far.
    func redirect(
        after response: TransportResponse, to current: TransportRequest, from original: TransportRequest, hops: Int,
        traceHeaders: [String]
    ) throws -> TransportRequest? {
        let policy = configuration.redirects
        guard [301, 302, 303, 307, 308].contains(response.statusCode), policy.maximumRedirects > 0 else {
            return nil
        }
        guard hops < policy.maximumRedirects else {
            throw CourierError(
                .redirectFailed, "The server redirected more than \(policy.maximumRedirects) times; giving up.",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
        }
        guard let location = response.headers["Location"],
              let next = URL(string: location, relativeTo: current.url)?.absoluteURL,
              ["http", "https"].contains(next.scheme?.lowercased() ?? "")
        else {
            throw CourierError(
                .redirectFailed, "The server answered \(response.statusCode) without a valid http(s) Location header.",
                url: response.url, statusCode: response.statusCode, headers: response.headers, body: response.body)
        }
        var redirected = redirected(current, to: next, status: response.statusCode, originalOrigin: original.url.origin)
        if observability.propagation != .anyOrigin, next.origin != original.url.origin {
            for name in traceHeaders { redirected.headers.remove(name) }
        }
        return redirected
    }

    private func redirected(_ request: TransportRequest, to url: URL, status: Int, originalOrigin: String) -> TransportRequest {
        var next = request
        next.url = url
        let becomesGET = (status == 303 && request.method != .head) || ((status == 301 || status == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            next.bodyStream = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers.remove(name)
            }
        }
        if url.origin != originalOrigin {
            for name in configuration.redirects.sensitiveHeaders + configuration.authenticationHeaders {
                next.headers.remove(name)
            }
        }
        return next
    }
}
