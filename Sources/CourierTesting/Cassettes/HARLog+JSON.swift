import Courier

// HAR values as the JSON Courier writes (through the package's one JSON writer, pretty-printed
// with sorted keys); files are read back with `Decodable`.

extension HARPair {
    var json: Parameter { .object(["name": .string(name), "value": .string(value)]) }
}

extension Array where Element == HARPair {
    var json: Parameter { .array(map(\.json)) }
}

extension HAREntry {
    var json: Parameter {
        .object([
            "startedDateTime": .string(startedDateTime), "time": .double(time), "request": request.json, "response": response.json,
            "cache": .object([:]), "timings": timings.json,
        ])
    }
}

extension HARRequest {
    var json: Parameter {
        var fields: [String: Parameter] = [
            "method": .string(method), "url": .string(url), "httpVersion": .string(httpVersion), "cookies": cookies.json,
            "headers": headers.json, "queryString": queryString.json, "headersSize": .int(headersSize), "bodySize": .int(bodySize),
        ]
        if let postData { fields["postData"] = postData.json }
        return .object(fields)
    }
}

extension HARPostData {
    var json: Parameter {
        var fields: [String: Parameter] = ["mimeType": .string(mimeType), "params": params.json, "text": .string(text)]
        if let base64 { fields["_base64"] = .string(base64) }
        return .object(fields)
    }
}

extension HARResponse {
    var json: Parameter {
        .object([
            "status": .int(status), "statusText": .string(statusText), "httpVersion": .string(httpVersion), "cookies": cookies.json,
            "headers": headers.json, "content": content.json, "redirectURL": .string(redirectURL), "headersSize": .int(headersSize),
            "bodySize": .int(bodySize),
        ])
    }
}

extension HARContent {
    var json: Parameter {
        var fields: [String: Parameter] = ["size": .int(size), "mimeType": .string(mimeType), "text": .string(text)]
        if let encoding { fields["encoding"] = .string(encoding) }
        return .object(fields)
    }
}

extension HARTimings {
    var json: Parameter {
        .object([
            "blocked": .double(blocked), "dns": .double(dns), "connect": .double(connect), "send": .double(send), "wait": .double(wait),
            "receive": .double(receive), "ssl": .double(ssl),
        ])
    }
}
