import Foundation

/// What makes two wire requests identical for in-flight deduplication: method, URL, every header
/// (credentials included, so two users never share an answer, and `Accept` included, so a JSON and
/// an XML request of one resource stay apart), the body's bytes and the response size limit.
///
/// Requests with a streamed body or a download destination have no key: they are never shared.
///
/// The hash is computed once, when the key is made, from the method and the URL only: an exchange
/// looks its key up several times (join or insert, then removal), and requests that differ only in
/// headers or body are rare enough to share a hash (equality still compares everything).
struct ExchangeKey: Hashable, Sendable {
    let method: HTTPMethod
    let url: String
    let headers: HTTPHeaders
    let body: Data?
    let maximumResponseSize: Int64?
    private let hash: Int

    init?(_ request: TransportRequest) {
        guard request.bodyStream == nil, !request.streamsBody else { return nil }
        method = request.method
        url = request.url.absoluteString
        headers = request.headers
        body = request.body
        maximumResponseSize = request.maximumResponseSize
        var hasher = Hasher()
        hasher.combine(method)
        hasher.combine(url)
        hash = hasher.finalize()
    }

    static func == (lhs: ExchangeKey, rhs: ExchangeKey) -> Bool {
        lhs.hash == rhs.hash && lhs.method == rhs.method && lhs.url == rhs.url && lhs.headers == rhs.headers
            && lhs.body == rhs.body && lhs.maximumResponseSize == rhs.maximumResponseSize
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
