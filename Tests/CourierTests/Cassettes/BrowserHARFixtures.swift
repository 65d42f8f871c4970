import Foundation

/// HAR files in the shapes desktop browsers export, written by hand for the tests (no browser runs
/// here): each says which tool and version writes that shape. Their sites are made up; what matters
/// is the shape of the fields Courier reads.
enum BrowserHARFixtures {
    struct Fixture {
        /// The tool and version whose export this imitates.
        let writer: String
        let text: String
        /// The site's origin, the base URL a client replays it on.
        let origin: String
        /// The entries the file holds with an answer (status 100 to 999).
        let answered: Int
    }

    static let all = [chrome, firefox, safari]

    /// Chrome 131's DevTools "Export HAR": the page first (`https://shop.example/`, HTTP/2 with
    /// pseudo-header-free lower-case names), a JSON fetch whose body is written decoded beside
    /// `content-encoding: gzip` and the encoded `content-length`, a request the browser blocked
    /// (`status: 0`, `_error: net::ERR_BLOCKED_BY_CLIENT`), one cancelled (`net::ERR_ABORTED`), and
    /// Chrome's own underscore fields.
    static let chrome = Fixture(
        writer: "Chrome 131 (DevTools, Export HAR)",
        text: #"""
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
              "pages": [{"startedDateTime": "2026-11-20T10:00:00.000Z", "id": "page_1", "title": "https://shop.example/", "pageTimings": {"onContentLoad": 120.5, "onLoad": 300.1}}],
              "entries": [
                {"_initiator": {"type": "other"}, "_priority": "VeryHigh", "_resourceType": "document", "cache": {}, "connection": "443",
                 "pageref": "page_1",
                 "request": {"method": "GET", "url": "https://shop.example/", "httpVersion": "http/2.0",
                   "headers": [{"name": ":authority", "value": "shop.example"}, {"name": ":method", "value": "GET"}, {"name": ":path", "value": "/"},
                               {"name": ":scheme", "value": "https"}, {"name": "accept", "value": "text/html"}],
                   "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
                 "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
                   "headers": [{"name": "content-type", "value": "text/html; charset=utf-8"}, {"name": "content-length", "value": "48"}],
                   "cookies": [], "content": {"size": 48, "mimeType": "text/html", "text": "<!doctype html><title>Shop</title><p>Welcome</p>"},
                   "redirectURL": "", "headersSize": -1, "bodySize": -1, "_transferSize": 180, "_error": null, "_fetchedViaServiceWorker": false},
                 "serverIPAddress": "192.0.2.10", "startedDateTime": "2026-11-20T10:00:00.000Z", "time": 35.2,
                 "timings": {"blocked": 1.1, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 30.1, "receive": 3.8, "_blocked_queueing": 0.9}},
                {"_initiator": {"type": "script"}, "_priority": "High", "_resourceType": "fetch", "cache": {}, "pageref": "page_1",
                 "request": {"method": "GET", "url": "https://shop.example/api/products?page=1&sort=price", "httpVersion": "http/2.0",
                   "headers": [{"name": "accept", "value": "application/json"}, {"name": "accept-encoding", "value": "gzip, deflate, br"}],
                   "queryString": [{"name": "page", "value": "1"}, {"name": "sort", "value": "price"}], "cookies": [], "headersSize": -1, "bodySize": 0},
                 "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
                   "headers": [{"name": "content-type", "value": "application/json"}, {"name": "content-encoding", "value": "gzip"},
                               {"name": "content-length", "value": "61"}, {"name": "vary", "value": "Accept-Encoding"}],
                   "cookies": [], "content": {"size": 57, "mimeType": "application/json", "compression": -4, "text": "{\"products\":[{\"id\":1,\"name\":\"Kettle\",\"price\":24.5}]}"},
                   "redirectURL": "", "headersSize": -1, "bodySize": 61, "_transferSize": 140, "_error": null},
                 "startedDateTime": "2026-11-20T10:00:00.200Z", "time": 20.0,
                 "timings": {"blocked": 0.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 18.0, "receive": 1.4}},
                {"_initiator": {"type": "parser"}, "_priority": "Low", "_resourceType": "script", "cache": {}, "pageref": "page_1",
                 "request": {"method": "GET", "url": "https://ads.example/tag.js", "httpVersion": "", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
                 "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                   "redirectURL": "", "headersSize": -1, "bodySize": -1, "_transferSize": 0, "_error": "net::ERR_BLOCKED_BY_CLIENT"},
                 "startedDateTime": "2026-11-20T10:00:00.210Z", "time": 0,
                 "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0}},
                {"_initiator": {"type": "script"}, "_priority": "High", "_resourceType": "fetch", "cache": {}, "pageref": "page_1",
                 "request": {"method": "POST", "url": "https://shop.example/api/track", "httpVersion": "http/2.0",
                   "headers": [{"name": "content-type", "value": "application/json"}], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 13,
                   "postData": {"mimeType": "application/json", "text": "{\"event\":\"x\"}"}},
                 "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                   "redirectURL": "", "headersSize": -1, "bodySize": -1, "_transferSize": 0, "_error": "net::ERR_ABORTED"},
                 "startedDateTime": "2026-11-20T10:00:00.300Z", "time": 2.5,
                 "timings": {"blocked": 2.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0}}
              ]}}
            """#,
        origin: "https://shop.example", answered: 2)

    /// Firefox 133's network monitor "Save All As HAR": the page with an explicit default port in
    /// the URL and an upper-case host (`https://NEWS.example:443/`), a request the browser never
    /// sent (blocked: `status: 0` and no `_error`), and a percent-encoded path that another tool
    /// writes decoded (`/caf%C3%A9`).
    static let firefox = Fixture(
        writer: "Firefox 133 (network monitor, Save All As HAR)",
        text: #"""
            {"log": {"version": "1.2", "creator": {"name": "Firefox", "version": "133.0"}, "browser": {"name": "Firefox", "version": "133.0"},
              "pages": [{"startedDateTime": "2026-11-20T11:00:00.000+00:00", "id": "page_1", "title": "News", "pageTimings": {"onContentLoad": 80, "onLoad": 150}}],
              "entries": [
                {"pageref": "page_1", "startedDateTime": "2026-11-20T11:00:00.000+00:00",
                 "request": {"bodySize": 0, "method": "GET", "url": "https://NEWS.example:443/", "httpVersion": "HTTP/2",
                   "headers": [{"name": "Host", "value": "news.example"}, {"name": "Accept", "value": "text/html"}], "cookies": [], "queryString": [], "headersSize": 300},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2",
                   "headers": [{"name": "content-type", "value": "text/html"}], "cookies": [],
                   "content": {"mimeType": "text/html", "size": 22, "text": "<h1>Today's news</h1>"}, "redirectURL": "", "headersSize": 120, "bodySize": 150},
                 "cache": {}, "timings": {"blocked": 0, "dns": 0, "connect": 0, "ssl": 0, "send": 0, "wait": 25, "receive": 0}, "time": 25,
                 "_securityState": "secure", "serverIPAddress": "192.0.2.20", "connection": "443"},
                {"pageref": "page_1", "startedDateTime": "2026-11-20T11:00:00.100+00:00",
                 "request": {"bodySize": 0, "method": "GET", "url": "https://news.example/caf%C3%A9?lang=pt", "httpVersion": "HTTP/2",
                   "headers": [{"name": "Accept", "value": "*/*"}], "cookies": [], "queryString": [{"name": "lang", "value": "pt"}], "headersSize": 200},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2",
                   "headers": [{"name": "content-type", "value": "text/plain; charset=utf-8"}], "cookies": [],
                   "content": {"mimeType": "text/plain; charset=utf-8", "size": 12, "text": "café com pão"}, "redirectURL": "", "headersSize": 90, "bodySize": 12},
                 "cache": {}, "timings": {"blocked": 0, "dns": 0, "connect": 0, "ssl": 0, "send": 0, "wait": 10, "receive": 0}, "time": 10},
                {"pageref": "page_1", "startedDateTime": "2026-11-20T11:00:00.120+00:00",
                 "request": {"bodySize": 0, "method": "GET", "url": "https://tracker.example/pixel.gif", "httpVersion": "",
                   "headers": [], "cookies": [], "queryString": [], "headersSize": -1},
                 "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                   "content": {"mimeType": "", "size": 0}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
                 "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0}, "time": 0}
              ]}}
            """#,
        origin: "https://news.example", answered: 2)

    /// Safari 18's Web Inspector "Export": the page at the root with `_fetchType`, a JSON response
    /// given base64-encoded, and an entry whose `response` is missing entirely (a load that failed
    /// before any response, as Web Inspector leaves it).
    static let safari = Fixture(
        writer: "Safari 18 (Web Inspector, Export)",
        text: #"""
            {"log": {"version": "1.2", "creator": {"name": "WebKit Web Inspector", "version": "18.0"},
              "pages": [{"startedDateTime": "2026-11-20T12:00:00.000Z", "id": "page_0", "title": "https://maps.example/", "pageTimings": {"onContentLoad": 60, "onLoad": 90}}],
              "entries": [
                {"pageref": "page_0", "startedDateTime": "2026-11-20T12:00:00.000Z", "time": 12.5,
                 "request": {"method": "GET", "url": "https://maps.example/", "httpVersion": "HTTP/1.1",
                   "cookies": [], "headers": [{"name": "Accept", "value": "text/html"}], "queryString": [], "headersSize": 180, "bodySize": 0},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                   "headers": [{"name": "Content-Type", "value": "text/html"}],
                   "content": {"size": 16, "compression": 0, "mimeType": "text/html", "text": "<p>Map view</p>\n"},
                   "redirectURL": "", "headersSize": 100, "bodySize": 16},
                 "cache": {}, "timings": {"blocked": 0.1, "dns": -1, "connect": -1, "ssl": -1, "send": 0.1, "wait": 11, "receive": 1.3},
                 "serverIPAddress": "192.0.2.30", "connection": "1", "_fetchType": "Network Load"},
                {"pageref": "page_0", "startedDateTime": "2026-11-20T12:00:00.050Z", "time": 8,
                 "request": {"method": "GET", "url": "https://maps.example/tiles/1/2/3.json", "httpVersion": "HTTP/1.1",
                   "cookies": [], "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [], "headersSize": 150, "bodySize": 0},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                   "headers": [{"name": "Content-Type", "value": "application/json"}],
                   "content": {"size": 16, "compression": 0, "mimeType": "application/json", "text": "eyJ0aWxlIjpbMSwyLDNdfQ==", "encoding": "base64"},
                   "redirectURL": "", "headersSize": 90, "bodySize": 16},
                 "cache": {}, "timings": {"blocked": 0, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 7, "receive": 1},
                 "_fetchType": "Network Load"},
                {"pageref": "page_0", "startedDateTime": "2026-11-20T12:00:00.060Z", "time": 0,
                 "request": {"method": "GET", "url": "https://maps.example/tiles/9/9/9.json", "httpVersion": "HTTP/1.1",
                   "cookies": [], "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
                 "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0}}
              ]}}
            """#,
        origin: "https://maps.example", answered: 2)
}
