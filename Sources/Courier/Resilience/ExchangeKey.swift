import Foundation

/// What makes two wire requests identical for in-flight deduplication: method, URL, every header
/// (credentials included, so two users never share an answer, and `Accept` included, so a JSON and
/// an XML request of one resource stay apart), the body's bytes and the response size limit.
///
/// Requests with a streamed body or a download destination have no key: they are never shared.
struct ExchangeKey: Hashable, Sendable {
    let method: HTTPMethod
    let url: String
    let headers: HTTPHeaders
    let body: Data?
    let maximumResponseSize: Int64?

    init?(_ request: TransportRequest) {
        guard request.bodyStream == nil, request.downloadDestination == nil else { return nil }
        method = request.method
        url = request.url.absoluteString
        headers = request.headers
        body = request.body
        maximumResponseSize = request.maximumResponseSize
    }
}
