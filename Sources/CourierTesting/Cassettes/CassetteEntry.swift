import Courier
import Foundation

/// One recorded exchange, redacted, its bodies held once as bytes (the HAR text is made only when
/// the cassette is written).
struct CassetteEntry: Sendable {
    /// The request as sent, redacted; its body in memory.
    var request: TransportRequest
    var status: Int
    var statusText: String
    var headers: HTTPHeaders
    var body: Data
    /// When the request started (ISO 8601, as written in the file).
    var startedDateTime: String
    var timings: HARTimings
    var time: Double
}

extension CassetteEntry {
    /// Reads an entry of a HAR file; `file` and `index` name it in errors.
    init(_ entry: HAREntry, index: Int, file: URL) throws(CourierError) {
        func problem(_ what: String) -> CourierError {
            CourierError(.cassetteInvalid, "The cassette \(file.path) cannot be read: entry \(index) \(what).")
        }
        guard let url = URL(string: entry.request.url), url.scheme != nil else {
            throw problem("has the URL \"\(entry.request.url)\", which is not an absolute URL")
        }
        guard (100...999).contains(entry.response.status) else {
            throw problem("has the status \(entry.response.status) (a request that got no response cannot be replayed)")
        }
        var request = TransportRequest(url: url, method: HTTPMethod(rawValue: entry.request.method.uppercased()), headers: Self.headers(entry.request.headers))
        if let postData = entry.request.postData {
            if let base64 = postData.base64 {
                guard let bytes = Data(base64Encoded: base64) else { throw problem("has a request body in _base64 that is not base64") }
                request.body = bytes
            } else if !postData.text.isEmpty {
                request.body = HARBodyText.bytes(postData.text, mimeType: postData.mimeType.isEmpty ? request.headers["Content-Type"] ?? "" : postData.mimeType)
            }
        }
        self.request = request
        status = entry.response.status
        statusText = entry.response.statusText
        headers = Self.headers(entry.response.headers)
        if entry.response.content.encoding?.lowercased() == "base64" {
            guard let bytes = Data(base64Encoded: entry.response.content.text, options: .ignoreUnknownCharacters) else {
                throw problem("has a response body marked base64 that is not base64")
            }
            body = bytes
        } else {
            let mimeType = headers["Content-Type"] ?? entry.response.content.mimeType
            body = HARBodyText.bytes(entry.response.content.text, mimeType: mimeType)
        }
        startedDateTime = entry.startedDateTime
        timings = entry.timings
        time = entry.time
    }

    // MARK: Pieces

    private static func headers(_ pairs: [HARPair]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for pair in pairs where !pair.name.hasPrefix(":") { headers.add(name: pair.name, value: pair.value) }  // no HTTP/2 pseudo-headers
        return headers
    }
}
