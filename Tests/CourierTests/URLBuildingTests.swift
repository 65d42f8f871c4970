import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// How base URL, API path, path and query combine. These run without a network (they inspect the
/// wire request the client prepares); the last test checks the server sees the same path.
@Suite struct URLBuildingTests {
    func url(base: String, apiPath: String = "", path: String, query: Parameters = [:]) throws -> String {
        let client = APIClient(baseURL: URL(string: base)!, apiPath: apiPath)
        return try client.transportRequest(for: Request<Data>(.get, path, query: query)).url.absoluteString
    }

    @Test(arguments: [
        ("https://api.example.com", "v1", "users", "https://api.example.com/v1/users"),
        ("https://api.example.com/", "v1/", "users", "https://api.example.com/v1/users"),
        ("https://api.example.com/", "/v1/", "/users", "https://api.example.com/v1/users"),
        ("https://api.example.com//", "//v1//", "//users", "https://api.example.com/v1/users"),
        ("https://api.example.com", "", "users", "https://api.example.com/users"),
        ("https://api.example.com", "/", "/users", "https://api.example.com/users"),
        ("https://api.example.com/base", "api/v1", "users/42", "https://api.example.com/base/api/v1/users/42"),
        ("https://api.example.com", "v1", "users/", "https://api.example.com/v1/users/"),
        ("https://api.example.com", "v1", "", "https://api.example.com/v1"),
        ("http://127.0.0.1:8080", "v1", "users", "http://127.0.0.1:8080/v1/users"),
        ("https://api.example.com", "", "", "https://api.example.com/"),
        ("https://api.example.com//", "/", "/", "https://api.example.com/"),
    ])
    func joinsWithExactlyOneSlash(base: String, apiPath: String, path: String, expected: String) throws {
        #expect(try url(base: base, apiPath: apiPath, path: path) == expected)
    }

    /// Dot segments are resolved wherever they are: in the base URL, the API path or the path, and
    /// only whole segments (`v1.2` and `.well-known` stay).
    @Test(arguments: [
        ("https://a.example/base/..", "v1", "users", "https://a.example/v1/users"),
        ("https://a.example", "v1/./api/../", "users", "https://a.example/v1/users"),
        ("https://a.example", "v1", "../v2/users", "https://a.example/v2/users"),
        ("https://a.example", "v1.2", "users.json", "https://a.example/v1.2/users.json"),
        ("https://a.example", "", ".well-known/x", "https://a.example/.well-known/x"),
        ("https://a.example", "v1", "a/.", "https://a.example/v1/a/"),
    ])
    func dotSegmentsAreResolvedInEveryPart(base: String, apiPath: String, path: String, expected: String) throws {
        #expect(try url(base: base, apiPath: apiPath, path: path) == expected)
    }

    @Test func absolutePathReplacesBaseAndAPIPath() throws {
        #expect(try url(base: "https://api.example.com", apiPath: "v1", path: "https://cdn.example.org/a b.png") == "https://cdn.example.org/a%20b.png")
        #expect(try url(base: "https://api.example.com", apiPath: "v1", path: "HTTP://other.example.com:81/x") == "HTTP://other.example.com:81/x")
    }

    @Test func pathIsPercentEncodedOnce() throws {
        #expect(try url(base: "https://a.example", path: "files/my file.txt") == "https://a.example/files/my%20file.txt")
        #expect(try url(base: "https://a.example", path: "files/my%20file.txt") == "https://a.example/files/my%20file.txt")
        #expect(try url(base: "https://a.example", path: "cidades/São Paulo") == "https://a.example/cidades/S%C3%A3o%20Paulo")
        #expect(try url(base: "https://a.example", path: "100%/done") == "https://a.example/100%25/done")
        #expect(try url(base: "https://a.example", path: "a:b@c/d;e=f") == "https://a.example/a:b@c/d;e=f")
    }

    @Test func queryInPathIsKeptAndParametersAppended() throws {
        #expect(try url(base: "https://a.example", path: "search?q=a b", query: ["page": 2]) == "https://a.example/search?q=a%20b&page=2")
        #expect(try url(base: "https://a.example", path: "search?", query: ["page": 2]) == "https://a.example/search?page=2")
        #expect(try url(base: "https://a.example", path: "x#frag") == "https://a.example/x")
        #expect(try url(base: "https://a.example", path: "", query: ["q": "a"]) == "https://a.example/?q=a")
        #expect(try url(base: "https://a.example", path: "x", query: ["tags": []]) == "https://a.example/x")
        #expect(try url(base: "https://a.example", path: "x?y=1", query: ["tags": [], "z": 2]) == "https://a.example/x?y=1&z=2")
        #expect(try url(base: "https://a.example", path: "x", query: ["tags": ["a"]]) == "https://a.example/x?tags%5B%5D=a")
    }

    @Test func perRequestBaseURLAndAPIPath() throws {
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!, apiPath: "v1")
        var request = Request<Data>(.get, "me")
        request.baseURL = URL(string: "https://auth.example.com/api")
        request.apiPath = ""
        #expect(try client.transportRequest(for: request).url.absoluteString == "https://auth.example.com/api/me")
    }

    @Test(arguments: ["not a url", "example.com", "ftp://files.example.com", "mailto:someone@example.com"])
    func invalidBaseURLIsATypedError(base: String) throws {
        let client = APIClient(baseURL: URL(string: base.replacingOccurrences(of: " ", with: "%20"))!)
        let error = #expect(throws: CourierError.self) { try client.transportRequest(for: Request<Data>(.get, "x")) }
        #expect(error?.kind == .invalidURL)
        #expect(error?.message.contains("not an absolute http or https URL") == true)
    }

    @Test func invalidAbsolutePathsAreTypedErrors() throws {
        let client = APIClient(baseURL: URL(string: "https://api.example.com")!)
        for path in ["ftp://x.example/file", "http://exa mple.com/x", "http://"] {
            let error = #expect(throws: CourierError.self) { try client.transportRequest(for: Request<Data>(.get, path)) }
            #expect(error?.kind == .invalidURL, "\(path)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func serverSeesTheEncodedPathAndQuery(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport, apiPath: "/echo/")
                let echo = try await client.send(Request<EchoReply>(.get, "/a b/ç", query: ["q": "x&y=z", "n": 1])).value
                #expect(echo.path == "/echo/a%20b/%C3%A7")
                #expect(echo.query == "n=1&q=x%26y%3Dz")
            }
        }
    }

    /// Odd paths and query values reach the server the same way on both transports: encoded once,
    /// dot segments resolved before sending (curl would resolve them, async-http-client would not),
    /// the fragment never sent.
    @Test(arguments: TransportKind.allCases)
    func oddPathsAndQueriesAreSentTheSameOnBothTransports(kind: TransportKind) async throws {
        let cases: [(path: String, query: Parameters, sentPath: String, sentQuery: String?)] = [
            ("São Paulo/日本", [:], "/echo/S%C3%A3o%20Paulo/%E6%97%A5%E6%9C%AC", nil),
            ("a b/100%/c%20d", [:], "/echo/a%20b/100%25/c%20d", nil),
            ("x/../y/./z", [:], "/echo/y/z", nil),
            ("x/..", [:], "/echo/", nil),
            ("a/../../../echo/b", [:], "/echo/b", nil),
            ("a//b/", [:], "/echo/a//b/", nil),
            ("page#section", [:], "/echo/page", nil),
            ("search?q=a b#frag", ["n": 1], "/echo/search", "q=a%20b&n=1"),
            ("q", ["text": "a?b#c%d&e=f g+ü", "empty": "", "none": .null], "/echo/q", "empty=&none=&text=a%3Fb%23c%25d%26e%3Df%20g%2B%C3%BC"),
            ("", [:], "/echo", nil),
        ]
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport, apiPath: "/echo/")
                for item in cases {
                    let echo = try await client.send(Request<EchoReply>(.get, item.path, query: item.query)).value
                    #expect(echo.path == item.sentPath, "\(item.path)")
                    #expect(echo.query == item.sentQuery, "\(item.path) \(item.query)")
                }
            }
        }
    }
}
