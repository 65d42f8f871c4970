import Courier
import Foundation

/// One recorded exchange, redacted, its bodies held once as bytes (the HAR text is made only when
/// the cassette is written).
struct CassetteEntry: Sendable {
    /// The request as sent, redacted; its body in memory.
    var request: TransportRequest {
        didSet { lookupPath = CassetteMatching.lookupPath(request.url) }
    }
    var status: Int
    var statusText: String
    var headers: HTTPHeaders
    var body: Data
    /// When the request started (ISO 8601, as written in the file).
    var startedDateTime: String
    var timings: HARTimings
    var time: Double
    /// For a request that got no answer (a HAR entry with status 0 or no response, as browsers
    /// write blocked, cancelled and failed requests): how it failed. A request matching it fails
    /// the same way.
    var failure: Failure?
    /// For a WebSocket session (a `101`): its messages and close.
    var webSocket: RecordedWebSocket?
    /// The request's path as sent, decoded (``CassetteMatching/lookupPath(_:)``), made once.
    private(set) var lookupPath: [UInt8]

    /// How a recorded request failed.
    struct Failure: Sendable {
        /// ``CourierError/Kind/cancelled`` when the file says the request was cancelled or
        /// aborted, else ``CourierError/Kind/cannotConnect``.
        var kind: CourierError.Kind
        /// The `_error` the file gives (Chrome, mitmproxy), if any.
        var error: String?
    }

    init(
        request: TransportRequest, status: Int, statusText: String, headers: HTTPHeaders, body: Data, startedDateTime: String,
        timings: HARTimings, time: Double, failure: Failure? = nil, webSocket: RecordedWebSocket? = nil
    ) {
        self.request = request
        self.status = status
        self.statusText = statusText
        self.headers = headers
        self.body = body
        self.startedDateTime = startedDateTime
        self.timings = timings
        self.time = time
        self.failure = failure
        self.webSocket = webSocket
        lookupPath = CassetteMatching.lookupPath(request.url)
    }
}

/// A recorded WebSocket session: the messages each way in order, and the server's close.
struct RecordedWebSocket: Sendable {
    struct Message: Sendable {
        /// Whether the app sent it (`send`), else the server (`receive`).
        var sent: Bool
        /// Seconds since 1970.
        var time: Double
        var message: WebSocketMessage
    }

    var messages: [Message]
    /// The code and reason of the server's close frame, when the session ended with one.
    var close: (code: WebSocketCloseCode, reason: String)?
}

extension CassetteEntry {
    /// Reads an entry of a HAR file; `file` and `index` name it in errors.
    init(_ entry: HAREntry, index: Int, file: URL) throws(CourierError) {
        func problem(_ what: String) -> CourierError {
            CourierError(.cassetteInvalid, "The cassette \(file.path) cannot be read: entry \(index) \(what).")
        }
        guard var url = URL(string: entry.request.url), let scheme = url.scheme else {
            throw problem("has the URL \"\(entry.request.url)\", which is not an absolute URL")
        }
        // A WebSocket's URL (Chrome writes ws and wss) is matched as the http or https a request names.
        if let plain = ["ws": "http", "wss": "https"][scheme.lowercased()] {
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.scheme = plain
            url = components?.url ?? url
        }
        let response = entry.response ?? HARResponse.none
        guard response.status == 0 || (100...999).contains(response.status) else {
            throw problem("has the status \(response.status), which is no HTTP status (0 for no response, else 100 to 999)")
        }
        var request = TransportRequest(url: url, method: HTTPMethod(rawValue: entry.request.method.uppercased()), headers: Self.headers(entry.request.headers))
        if let postData = entry.request.postData {
            if let base64 = postData.base64 {
                guard let bytes = Data(base64Encoded: base64) else { throw problem("has a request body in _base64 that is not base64") }
                request.body = bytes
            } else if !postData.text.isEmpty {
                request.body = HARBodyText.bytes(
                    postData.text, mimeType: postData.mimeType.isEmpty ? request.headers["Content-Type"] ?? "" : postData.mimeType,
                    lengths: entry.request.bodySize > 0 ? [entry.request.bodySize] : [])
            }
        }
        var headers = Self.headers(response.headers)
        let body: Data
        let isBase64 = response.content.encoding?.lowercased() == "base64"
        if isBase64 {
            guard let bytes = Data(base64Encoded: response.content.text, options: .ignoreUnknownCharacters) else {
                throw problem("has a response body marked base64 that is not base64")
            }
            body = bytes
        } else {
            let mimeType = headers["Content-Type"] ?? response.content.mimeType
            body = HARBodyText.bytes(response.content.text, mimeType: mimeType, lengths: response.content.decodedLengths)
        }
        // Browsers write the body decoded beside the `Content-Encoding` it came in: replayed as a
        // transport that decoded it hands it on, without the fields that described the encoded bytes.
        if ResponseFraming.isEncoded(headers), !Self.isStillEncoded(body, headers: headers, base64: isBase64) {
            headers = ResponseFraming.decoded(headers)
        }
        var failure: Failure?
        if response.status == 0 {
            let error = response.error ?? entry.error
            failure = Failure(kind: Self.isCancellation(error) ? .cancelled : .cannotConnect, error: error)
        }
        self.init(
            request: request, status: response.status, statusText: response.statusText, headers: headers, body: body,
            startedDateTime: entry.startedDateTime, timings: entry.timings, time: entry.time, failure: failure,
            webSocket: try Self.webSocket(entry, problem: problem))
    }

    /// The WebSocket session an entry records (`_resourceType: "websocket"`, `_webSocketMessages`):
    /// text and binary messages; other opcodes (control frames, which some tools write) are left out.
    private static func webSocket(_ entry: HAREntry, problem: (String) -> CourierError) throws(CourierError) -> RecordedWebSocket? {
        guard entry.resourceType?.lowercased() == "websocket" || entry.webSocketMessages != nil else { return nil }
        var messages: [RecordedWebSocket.Message] = []
        for (index, recorded) in (entry.webSocketMessages ?? []).enumerated() {
            let sent: Bool
            switch recorded.type.lowercased() {
            case "send": sent = true
            case "receive": sent = false
            default: throw problem("has WebSocket message \(index) of type \"\(recorded.type)\" (send or receive)")
            }
            let message: WebSocketMessage
            switch recorded.opcode {
            case 1: message = .text(recorded.data)
            case 2:
                guard let bytes = Data(base64Encoded: recorded.data, options: .ignoreUnknownCharacters) else {
                    throw problem("has binary WebSocket message \(index), whose data is not base64")
                }
                message = .binary(bytes)
            default: continue
            }
            messages.append(RecordedWebSocket.Message(sent: sent, time: recorded.time, message: message))
        }
        let close = entry.webSocketClose.flatMap { close in
            UInt16(exactly: close.code).map { (code: WebSocketCloseCode(rawValue: $0), reason: close.reason) }
        }
        return RecordedWebSocket(messages: messages, close: close)
    }

    /// Whether `body` is still in the content coding `headers` name: never for a body the file
    /// gives as text (encoded bytes are not text); for base64, by the coding's leading bytes
    /// (gzip, zlib's deflate, zstd; a brotli body has none, and is taken as encoded).
    private static func isStillEncoded(_ body: Data, headers: HTTPHeaders, base64: Bool) -> Bool {
        guard base64 else { return false }
        let coding = headers["Content-Encoding"]?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let head = [UInt8](body.prefix(4))
        switch coding {
        case "gzip", "x-gzip": return head.starts(with: [0x1F, 0x8B])
        case "deflate": return head.first.map { $0 & 0x0F == 8 } ?? false
        case "zstd": return head.starts(with: [0x28, 0xB5, 0x2F, 0xFD])
        default: return true
        }
    }

    /// Whether a HAR `_error` says the request was cancelled: Chrome's `net::ERR_ABORTED`,
    /// mitmproxy's "… cancelled …", a "canceled" of Firefox's or Safari's console.
    private static func isCancellation(_ error: String?) -> Bool {
        guard let error = error?.lowercased() else { return false }
        return error.contains("aborted") || error.contains("cancelled") || error.contains("canceled")
    }

    // MARK: Pieces

    private static func headers(_ pairs: [HARPair]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for pair in pairs where !pair.name.hasPrefix(":") { headers.add(name: pair.name, value: pair.value) }  // no HTTP/2 pseudo-headers
        return headers
    }
}
