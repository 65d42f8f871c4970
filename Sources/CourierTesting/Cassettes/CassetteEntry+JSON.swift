import Courier
import Foundation

// A recorded entry as the HAR JSON Courier writes: straight from the entry through the package's
// one JSON writer, pretty-printed, member by member (no HAR values or `Parameter` tree in between).
// Each object's keys are written in sorted order, as `JSONWriter.write(_:)` would sort them; a test
// rewrites a whole cassette through that and requires the same bytes. Files are read back through
// the `Decodable` HAR values in HARLog.swift.

extension CassetteEntry {
    func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let webSocket { try Self.write(webSocket, to: &json) }
        json.literalKey("cache")
        json.beginObject()
        json.endObject()
        json.literalKey("request")
        writeRequest(to: &json)
        json.literalKey("response")
        writeResponse(to: &json)
        json.literalKey("startedDateTime")
        json.write(startedDateTime)
        json.literalKey("time")
        try json.write(time)
        json.literalKey("timings")
        try timings.write(to: &json)
        json.endObject()
    }

    private func writeRequest(to json: inout JSONWriter) {
        let body = request.body ?? Data()
        let type = request.headers["Content-Type"]
        json.beginObject()
        json.literalKey("bodySize")
        json.write(body.count)
        Self.writeMessageHead(cookies: Self.requestCookies(request.headers), headers: request.headers, to: &json)
        json.literalKey("method")
        json.write(request.method.rawValue)
        if !body.isEmpty || type != nil {
            // HAR 1.2 has no encoding for postData: a body that is not text goes base64-encoded in `_base64`.
            json.literalKey("postData")
            json.beginObject()
            let form = HARBodyText.form(body, mimeType: type ?? "")
            if case .base64 = form {
                json.literalKey("_base64")
                json.write(body.base64EncodedString())
            }
            json.literalKey("mimeType")
            json.write(type ?? "")
            json.literalKey("params")
            json.beginArray()
            json.endArray()
            json.literalKey("text")
            if case .base64 = form { json.write("") } else { form.write(body, to: &json) }
            json.endObject()
        }
        json.literalKey("queryString")
        Self.writePairs(request.url.queryPairs, to: &json)
        json.literalKey("url")
        json.write(webSocket == nil ? request.url.absoluteString : Self.webSocketURL(request.url))
        json.endObject()
    }

    /// A session's members, which sort before the others: `_resourceType`, `_webSocketClose`
    /// (Courier's own), `_webSocketMessages` (Chrome's form: binary data in base64).
    private static func write(_ webSocket: RecordedWebSocket, to json: inout JSONWriter) throws {
        json.literalKey("_resourceType")
        json.write("websocket")
        if let close = webSocket.close {
            json.literalKey("_webSocketClose")
            json.beginObject()
            json.literalKey("code")
            json.write(Int(close.code.rawValue))
            json.literalKey("reason")
            json.write(close.reason)
            json.endObject()
        }
        json.literalKey("_webSocketMessages")
        json.beginArray()
        for recorded in webSocket.messages {
            json.element()
            json.beginObject()
            json.literalKey("data")
            switch recorded.message {
            case .text(let text): json.write(text)
            case .binary(let data): json.write(data.base64EncodedString())
            }
            json.literalKey("opcode")
            if case .text = recorded.message { json.write(1) } else { json.write(2) }
            json.literalKey("time")
            try json.write(recorded.time)
            json.literalKey("type")
            json.write(recorded.sent ? "send" : "receive")
            json.endObject()
        }
        json.endArray()
    }

    /// `url` with the WebSocket scheme Chrome writes for a session: `ws` for http, `wss` for https.
    private static func webSocketURL(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        switch url.scheme?.lowercased() {
        case "http": components?.scheme = "ws"
        case "https": components?.scheme = "wss"
        default: break
        }
        return components?.url?.absoluteString ?? url.absoluteString
    }

    private func writeResponse(to json: inout JSONWriter) {
        let mimeType = headers["Content-Type"] ?? ""
        let form = HARBodyText.form(body, mimeType: mimeType)
        json.beginObject()
        if let error = failure?.error {
            // A request that got no answer, read from a browser's file: kept as it was written.
            json.literalKey("_error")
            json.write(error)
        }
        json.literalKey("bodySize")
        json.write(body.count)
        json.literalKey("content")
        json.beginObject()
        if case .base64 = form {
            json.literalKey("encoding")
            json.write("base64")
        }
        json.literalKey("mimeType")
        json.write(mimeType)
        json.literalKey("size")
        json.write(body.count)
        json.literalKey("text")
        form.write(body, to: &json)
        json.endObject()
        Self.writeMessageHead(cookies: Self.responseCookies(headers), headers: headers, to: &json)
        json.literalKey("redirectURL")
        json.write(headers["Location"] ?? "")
        json.literalKey("status")
        json.write(status)
        json.literalKey("statusText")
        json.write(statusText.isEmpty && failure == nil ? HTTPStatus.reason(status) : statusText)
        json.endObject()
    }

    /// The members a request and a response share, which sort together: `cookies`, `headers`,
    /// `headersSize`, `httpVersion`.
    private static func writeMessageHead(cookies: [HARPair], headers: HTTPHeaders, to json: inout JSONWriter) {
        json.literalKey("cookies")
        writePairs(cookies.lazy.map { ($0.name, $0.value) }, to: &json)
        json.literalKey("headers")
        writePairs(headers.lazy.map { ($0.name, $0.value) }, to: &json)
        json.literalKey("headersSize")
        json.write(-1)
        json.literalKey("httpVersion")
        json.write("HTTP/1.1")
    }

    /// Names and values as HAR's `[{"name": …, "value": …}]`.
    private static func writePairs(_ pairs: some Sequence<(String, String)>, to json: inout JSONWriter) {
        json.beginArray()
        for (name, value) in pairs {
            json.element()
            json.beginObject()
            json.literalKey("name")
            json.write(name)
            json.literalKey("value")
            json.write(value)
            json.endObject()
        }
        json.endArray()
    }

    private static func requestCookies(_ headers: HTTPHeaders) -> [HARPair] {
        headers.values(for: "Cookie").flatMap { $0.split(separator: ";") }.compactMap { cookie(String($0)) }
    }

    private static func responseCookies(_ headers: HTTPHeaders) -> [HARPair] {
        headers.values(for: "Set-Cookie").compactMap { value in value.split(separator: ";").first.flatMap { cookie(String($0)) } }
    }

    private static func cookie(_ pair: String) -> HARPair? {
        let pair = pair.trimmingCharacters(in: .whitespaces)
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        return HARPair(name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...]))
    }
}

extension HARTimings {
    func write(to json: inout JSONWriter) throws {
        json.beginObject()
        let members: [(StaticString, Double)] = [("blocked", blocked), ("connect", connect), ("dns", dns), ("receive", receive), ("send", send), ("ssl", ssl), ("wait", wait)]
        for (key, value) in members {
            json.literalKey(key)
            try json.write(value)
        }
        json.endObject()
    }
}
