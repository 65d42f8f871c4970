import Courier

// HAR values as the JSON Courier writes: through the package's one JSON writer, pretty-printed,
// member by member with no `Parameter` tree in between. Each object's keys are written in sorted
// order (as `JSONWriter.write(_:)` would sort them; a test checks both give the same bytes).
// Files are read back with `Decodable`.

extension HAREntry {
    func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.literalKey("cache")
        json.beginObject()
        json.endObject()
        json.literalKey("request")
        request.write(to: &json)
        json.literalKey("response")
        response.write(to: &json)
        json.literalKey("startedDateTime")
        json.write(startedDateTime)
        json.literalKey("time")
        try json.write(time)
        json.literalKey("timings")
        try timings.write(to: &json)
        json.endObject()
    }
}

extension HARRequest {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.literalKey("bodySize")
        json.write(bodySize)
        HARPair.writeMessageHead(cookies: cookies, headers: headers, headersSize: headersSize, httpVersion: httpVersion, to: &json)
        json.literalKey("method")
        json.write(method)
        if let postData {
            json.literalKey("postData")
            postData.write(to: &json)
        }
        json.literalKey("queryString")
        queryString.write(to: &json)
        json.literalKey("url")
        json.write(url)
        json.endObject()
    }
}

extension HARPostData {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let base64 {
            json.literalKey("_base64")
            json.write(base64)
        }
        json.literalKey("mimeType")
        json.write(mimeType)
        json.literalKey("params")
        params.write(to: &json)
        json.literalKey("text")
        json.write(text)
        json.endObject()
    }
}

extension HARResponse {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.literalKey("bodySize")
        json.write(bodySize)
        json.literalKey("content")
        content.write(to: &json)
        HARPair.writeMessageHead(cookies: cookies, headers: headers, headersSize: headersSize, httpVersion: httpVersion, to: &json)
        json.literalKey("redirectURL")
        json.write(redirectURL)
        json.literalKey("status")
        json.write(status)
        json.literalKey("statusText")
        json.write(statusText)
        json.endObject()
    }
}

extension HARContent {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        if let encoding {
            json.literalKey("encoding")
            json.write(encoding)
        }
        json.literalKey("mimeType")
        json.write(mimeType)
        json.literalKey("size")
        json.write(size)
        json.literalKey("text")
        json.write(text)
        json.endObject()
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

extension HARPair {
    /// The members a request and a response share, which sort together: `cookies`, `headers`,
    /// `headersSize`, `httpVersion`.
    static func writeMessageHead(cookies: [HARPair], headers: [HARPair], headersSize: Int, httpVersion: String, to json: inout JSONWriter) {
        json.literalKey("cookies")
        cookies.write(to: &json)
        json.literalKey("headers")
        headers.write(to: &json)
        json.literalKey("headersSize")
        json.write(headersSize)
        json.literalKey("httpVersion")
        json.write(httpVersion)
    }
}

extension Array where Element == HARPair {
    func write(to json: inout JSONWriter) {
        json.beginArray()
        for pair in self {
            json.element()
            json.beginObject()
            json.literalKey("name")
            json.write(pair.name)
            json.literalKey("value")
            json.write(pair.value)
            json.endObject()
        }
        json.endArray()
    }
}
