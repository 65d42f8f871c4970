import Courier
import Foundation

/// The HAR 1.2 document a cassette is saved as (http://www.softwareishard.com/blog/har-12-spec/):
/// the fields Courier writes and reads. Reading is lenient, so HAR files written by browsers,
/// proxies and mitmproxy load too: a field that is missing takes its empty value.
struct HARDocument: Decodable, Sendable {
    var log: HARLog
}

/// `log`: the creator and the entries, one per exchange.
struct HARLog: Decodable, Sendable {
    var version: String
    var creator: HARCreator
    var entries: [HAREntry]

    enum CodingKeys: String, CodingKey {
        case version, creator, entries
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? "1.2"
        creator = try container.decodeIfPresent(HARCreator.self, forKey: .creator) ?? HARCreator(name: "", version: "")
        entries = try container.decode([HAREntry].self, forKey: .entries)
    }
}

/// `log.creator`.
struct HARCreator: Decodable, Sendable {
    /// The version written into cassettes Courier records.
    static let courierVersion = "0.1"

    var name: String
    var version: String
}

/// A name and a value: a header, a query parameter or a cookie.
struct HARPair: Decodable, Sendable, Equatable {
    var name: String
    var value: String
}

/// `log.entries[]`: one request and its response (`cache` is written empty: Courier records no
/// browser cache state).
struct HAREntry: Decodable, Sendable {
    var startedDateTime: String
    /// Milliseconds, the sum of ``timings``.
    var time: Double
    var request: HARRequest
    /// `nil` when the entry has none (a request that got no answer, as some tools write it).
    var response: HARResponse?
    var timings: HARTimings
    /// Why the request failed, where a tool writes it on the entry (`_error`).
    var error: String?
    /// `websocket` for a WebSocket session (`_resourceType`, as Chrome and mitmproxy write it).
    var resourceType: String?
    /// A WebSocket session's messages (`_webSocketMessages`).
    var webSocketMessages: [HARWebSocketMessage]?
    /// How a recorded WebSocket session closed (`_webSocketClose`, Courier's own).
    var webSocketClose: HARWebSocketClose?

    enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, timings
        case error = "_error"
        case resourceType = "_resourceType"
        case webSocketMessages = "_webSocketMessages"
        case webSocketClose = "_webSocketClose"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedDateTime = try container.decodeIfPresent(String.self, forKey: .startedDateTime) ?? ""
        time = (try? container.decodeIfPresent(Double.self, forKey: .time)) ?? 0
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decodeIfPresent(HARResponse.self, forKey: .response)
        timings = try container.decodeIfPresent(HARTimings.self, forKey: .timings) ?? HARTimings(wait: time)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
        resourceType = try? container.decodeIfPresent(String.self, forKey: .resourceType)
        webSocketMessages = try container.decodeIfPresent([HARWebSocketMessage].self, forKey: .webSocketMessages)
        webSocketClose = try? container.decodeIfPresent(HARWebSocketClose.self, forKey: .webSocketClose)
    }
}

/// `entry._webSocketMessages[]`: one message of a WebSocket session, as Chrome writes it. `type`
/// is `send` or `receive`, `time` seconds since 1970, `opcode` 1 (text, `data` as it is) or 2
/// (binary, `data` in base64).
struct HARWebSocketMessage: Decodable, Sendable {
    var type: String
    var time: Double
    var opcode: Int
    var data: String

    enum CodingKeys: String, CodingKey {
        case type, time, opcode, data
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        time = (try? container.decodeIfPresent(Double.self, forKey: .time)) ?? 0
        opcode = try container.decode(Int.self, forKey: .opcode)
        data = try container.decodeIfPresent(String.self, forKey: .data) ?? ""
    }
}

/// `entry._webSocketClose`: the close code and reason the server's close frame carried.
struct HARWebSocketClose: Decodable, Sendable {
    var code: Int
    var reason: String
}

/// `entry.request`.
struct HARRequest: Decodable, Sendable {
    var method: String
    var url: String
    var httpVersion: String
    var cookies: [HARPair]
    var headers: [HARPair]
    var queryString: [HARPair]
    var postData: HARPostData?
    var headersSize: Int
    var bodySize: Int

    enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = (try? container.decodeIfPresent([HARPair].self, forKey: .cookies)) ?? []
        headers = try container.decodeIfPresent([HARPair].self, forKey: .headers) ?? []
        queryString = (try? container.decodeIfPresent([HARPair].self, forKey: .queryString)) ?? []
        postData = try container.decodeIfPresent(HARPostData.self, forKey: .postData)
        headersSize = try container.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
        bodySize = try container.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
    }

}

/// `request.postData`. HAR 1.2 has no encoding for it: a body that is not UTF-8 text is written
/// base64-encoded in the extension field `_base64`, with `text` empty.
struct HARPostData: Decodable, Sendable {
    var mimeType: String
    var params: [HARPair]
    var text: String
    var base64: String?

    enum CodingKeys: String, CodingKey {
        case mimeType, params, text
        case base64 = "_base64"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        params = (try? container.decodeIfPresent([HARPair].self, forKey: .params)) ?? []
        text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
        base64 = try container.decodeIfPresent(String.self, forKey: .base64)
    }
}

/// `entry.response`.
struct HARResponse: Decodable, Sendable {
    var status: Int
    var statusText: String
    var httpVersion: String
    var cookies: [HARPair]
    var headers: [HARPair]
    var content: HARContent
    var redirectURL: String
    var headersSize: Int
    var bodySize: Int
    /// Why the request got no answer, where a tool writes it (Chrome: `net::ERR_…`).
    var error: String?

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize
        case error = "_error"
    }

    /// A response that never came: status 0, nothing else.
    static let none = HARResponse(status: 0)

    private init(status: Int) {
        self.status = status
        statusText = ""
        httpVersion = ""
        cookies = []
        headers = []
        content = HARContent(size: 0, mimeType: "", text: "", encoding: nil)
        redirectURL = ""
        headersSize = -1
        bodySize = -1
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        error = try? container.decodeIfPresent(String.self, forKey: .error)
        status = try container.decode(Int.self, forKey: .status)
        statusText = try container.decodeIfPresent(String.self, forKey: .statusText) ?? ""
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
        cookies = (try? container.decodeIfPresent([HARPair].self, forKey: .cookies)) ?? []
        headers = try container.decodeIfPresent([HARPair].self, forKey: .headers) ?? []
        content = try container.decodeIfPresent(HARContent.self, forKey: .content) ?? HARContent(size: 0, mimeType: "", text: "", encoding: nil)
        redirectURL = try container.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
        headersSize = try container.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
        bodySize = try container.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
    }
}

/// `response.content`: the body, as text or (`encoding: "base64"`) as base64 text.
struct HARContent: Decodable, Sendable {
    var size: Int
    var mimeType: String
    var text: String
    var encoding: String?
    /// The bytes a content coding saved, as the writer counts them (`nil` when the file has none).
    var compression: Int?

    enum CodingKeys: String, CodingKey {
        case size, mimeType, text, encoding, compression
    }

    /// The lengths the writer may have given the decoded body: `size` (HAR 1.2 and the browsers),
    /// and `size + compression` (mitmproxy, whose `size` is the encoded body's).
    var decodedLengths: [Int] {
        guard size > 0 else { return [] }
        guard let compression, compression > 0 else { return [size] }
        return [size, size + compression]
    }

    init(size: Int, mimeType: String, text: String, encoding: String?) {
        self.size = size
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decodeIfPresent(Int.self, forKey: .size) ?? 0
        mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
        text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        compression = try? container.decodeIfPresent(Int.self, forKey: .compression)
    }
}


/// `entry.timings`, in milliseconds; `-1` where a phase does not apply or is not known.
struct HARTimings: Decodable, Sendable {
    var blocked: Double = -1
    var dns: Double = -1
    var connect: Double = -1
    var send: Double = 0
    var wait: Double
    var receive: Double = 0
    var ssl: Double = -1

    enum CodingKeys: String, CodingKey {
        case blocked, dns, connect, send, wait, receive, ssl
    }

    init(wait: Double) {
        self.wait = wait
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        blocked = (try? container.decodeIfPresent(Double.self, forKey: .blocked)) ?? -1
        dns = (try? container.decodeIfPresent(Double.self, forKey: .dns)) ?? -1
        connect = (try? container.decodeIfPresent(Double.self, forKey: .connect)) ?? -1
        send = (try? container.decodeIfPresent(Double.self, forKey: .send)) ?? 0
        wait = (try? container.decodeIfPresent(Double.self, forKey: .wait)) ?? 0
        receive = (try? container.decodeIfPresent(Double.self, forKey: .receive)) ?? 0
        ssl = (try? container.decodeIfPresent(Double.self, forKey: .ssl)) ?? -1
    }
}
